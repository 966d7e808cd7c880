//! The shell analysis on random and mutated command lines: it never panics, is
//! deterministic, a line holding a construct it does not model is never read-only, and a
//! modelled line hides no text from its commands. "Does not model" and "comment" are
//! judged here by a separate quote-aware scan of the raw text (expansions, backticks,
//! process substitution, here-docs; a `#` that begins a word), not by the analysis itself.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[derive(Default)]
struct Scan {
    /// An expansion, substitution or here-doc outside single quotes and comments.
    unmodelled: bool,
    /// Where bash's comments are (a `#` at the start of a word, to the end of the line).
    comments: Vec<std::ops::Range<usize>>,
}

fn scan(line: &str) -> Scan {
    let mut out = Scan::default();
    #[derive(PartialEq)]
    enum Q {
        None,
        Single,
        Double,
    }
    let b = line.as_bytes();
    let mut q = Q::None;
    let mut i = 0;
    let mut word_start = true;
    while i < b.len() {
        let c = b[i];
        match q {
            Q::Single => {
                if c == b'\'' {
                    q = Q::None;
                }
            }
            Q::Double | Q::None => {
                let next = b.get(i + 1).copied();
                match c {
                    b'\\' => {
                        i += 2;
                        word_start = false;
                        continue;
                    }
                    b'`' => {
                        out.unmodelled = true;
                        return out;
                    }
                    b'$' => {
                        if let Some(n) = next
                            && (n.is_ascii_alphanumeric()
                                || b"_{(@*#?!$-".contains(&n)
                                || (q == Q::None && (n == b'\'' || n == b'"')))
                        {
                            out.unmodelled = true;
                            return out;
                        }
                    }
                    b'"' => q = if q == Q::Double { Q::None } else { Q::Double },
                    b'\'' if q == Q::None => q = Q::Single,
                    b'<' | b'>' if q == Q::None && matches!(next, Some(b'(')) => {
                        out.unmodelled = true;
                        return out;
                    }
                    b'<' if q == Q::None && next == Some(b'<') => {
                        out.unmodelled = true;
                        return out;
                    }
                    b'#' if q == Q::None && word_start => {
                        let start = i;
                        while i < b.len() && b[i] != b'\n' {
                            i += 1;
                        }
                        out.comments.push(start..i);
                        continue;
                    }
                    _ => {}
                }
            }
        }
        word_start = q == Q::None && (c.is_ascii_whitespace() || b";|&()".contains(&c));
        i += 1;
    }
    out
}

/// The first byte of a modelled line that no reported command, word or redirect covers
/// and that is neither a blank, an operator nor part of a comment: text bash runs that the
/// analysis did not look at (as `; rm x` after an escaped blank and `#` once was).
fn hidden_text(
    line: &str,
    a: &dcl_shell::Analysis,
    comments: &[std::ops::Range<usize>],
) -> Option<usize> {
    let b = line.as_bytes();
    let mut covered = vec![false; b.len()];
    let mut cover = |r: &std::ops::Range<usize>| {
        for c in covered.iter_mut().take(r.end.min(b.len())).skip(r.start) {
            *c = true;
        }
    };
    for c in &a.commands {
        cover(&c.source);
        c.words.iter().for_each(|w| cover(&w.source));
        c.redirects.iter().for_each(|r| cover(&r.target.source));
    }
    comments.iter().for_each(&mut cover);
    (0..b.len()).find(|&i| {
        let c = b[i];
        let fd_before_redirect = c.is_ascii_digit()
            && b[i..]
                .iter()
                .find(|d| !d.is_ascii_digit())
                .is_some_and(|d| b"<>".contains(d));
        // `\<newline>` is removed before words are split (an even run of backslashes
        // before it leaves this one unescaped).
        let continuation = c == b'\\'
            && b.get(i + 1) == Some(&b'\n')
            && b[..i].iter().rev().take_while(|&&d| d == b'\\').count() % 2 == 0;
        // `>&-` / `<&-` close a descriptor when the `-` is a whole word.
        let close = c == b'-'
            && i > 0
            && b[i - 1] == b'&'
            && b.get(i + 1)
                .is_none_or(|n| n.is_ascii_whitespace() || b";&|()<>".contains(n));
        !covered[i]
            && !continuation
            && !close
            && !c.is_ascii_whitespace()
            && !b";&|()!<>".contains(&c)
            && !fd_before_redirect
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let a = dcl_shell::analyse(line);
    assert_eq!(
        a,
        dcl_shell::analyse(line),
        "the analysis is not deterministic"
    );
    let _ = a.opaque_reason();
    let s = scan(line);
    // Rules (allow, deny, protected paths) are matched against a modelled line's commands,
    // read-only or not, so none may hide text from them.
    if a.unmodelled.is_none()
        && !s.unmodelled
        && let Some(at) = hidden_text(line, &a, &s.comments)
    {
        panic!("modelled, but byte {at} is in no command: {line:?} {a:?}");
    }
    if let Ok(ro) = dcl_shell::readonly::classify(&a) {
        assert!(
            !s.unmodelled,
            "read-only despite an unmodelled construct: {line:?}"
        );
        assert!(a.unmodelled.is_none() && !a.substitution && !a.background);
        assert!(
            a.commands
                .iter()
                .all(|c| c.assignments.is_empty() && !c.heredoc)
        );
        for acc in &ro.accesses {
            if let dcl_shell::readonly::Access::Read(w) = acc {
                assert_ne!(w.kind, dcl_shell::WordKind::Dynamic, "{line:?}");
            }
        }
    }
});
