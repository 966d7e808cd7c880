//! The shell analysis on random and mutated command lines: it never panics, is
//! deterministic, and a line holding a construct it does not model is never read-only.
//! "Does not model" is judged here by a separate quote-aware scan of the raw text
//! (expansions, backticks, process substitution, here-docs), not by the analysis itself.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Whether the raw line has an expansion, substitution or here-doc outside single quotes
/// (and outside comments).
fn has_unmodelled_construct(line: &str) -> bool {
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
                    b'`' => return true,
                    b'$' => {
                        if let Some(n) = next
                            && (n.is_ascii_alphanumeric()
                                || b"_{(@*#?!$-".contains(&n)
                                || (q == Q::None && (n == b'\'' || n == b'"')))
                        {
                            return true;
                        }
                    }
                    b'"' => q = if q == Q::Double { Q::None } else { Q::Double },
                    b'\'' if q == Q::None => q = Q::Single,
                    b'<' | b'>' if q == Q::None && matches!(next, Some(b'(')) => return true,
                    b'<' if q == Q::None && next == Some(b'<') => return true,
                    b'#' if q == Q::None && word_start => {
                        while i < b.len() && b[i] != b'\n' {
                            i += 1;
                        }
                        continue;
                    }
                    _ => {}
                }
            }
        }
        word_start = q == Q::None && (c.is_ascii_whitespace() || b";|&()".contains(&c));
        i += 1;
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let a = dcl_shell::analyse(line);
    assert_eq!(a, dcl_shell::analyse(line), "the analysis is not deterministic");
    let _ = a.opaque_reason();
    if let Ok(ro) = dcl_shell::readonly::classify(&a) {
        assert!(
            !has_unmodelled_construct(line),
            "read-only despite an unmodelled construct: {line:?}"
        );
        assert!(a.unmodelled.is_none() && !a.substitution && !a.background);
        assert!(a.commands.iter().all(|c| c.assignments.is_empty() && !c.heredoc));
        for acc in &ro.accesses {
            if let dcl_shell::readonly::Access::Read(w) = acc {
                assert_ne!(w.kind, dcl_shell::WordKind::Dynamic, "{line:?}");
            }
        }
    }
});
