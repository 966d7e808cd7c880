//! Cost of the shell analysis a permission check pays per Bash call: parse + classify.
use criterion::{Criterion, criterion_group, criterion_main};

const LINES: &[&str] = &[
    "ls -la",
    "git status --short && git log --oneline -5",
    "grep -rn 'fn main' src | head -20",
    "find . -name '*.rs' -not -path './target/*' | xargs wc -l",
    "cat <<EOF > notes.txt\nsome text $HOME\nEOF",
    "npm run test -- --watch 2>&1 | tee out.log; echo done",
];

fn bench(c: &mut Criterion) {
    c.bench_function("analyse+classify 6 typical lines", |b| {
        b.iter(|| {
            for l in LINES {
                let a = dcl_shell::analyse(std::hint::black_box(l));
                let _ = std::hint::black_box(dcl_shell::readonly::classify(&a));
            }
        })
    });
    let long = "echo x && ".repeat(200) + "ls";
    c.bench_function("analyse a 2000-byte line", |b| {
        b.iter(|| dcl_shell::analyse(std::hint::black_box(&long)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
