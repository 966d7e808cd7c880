//! Errors are types in dcl-engine (issue 19): no `Result<_, String>` in the crate's
//! non-test code. Callers match on variants; the texts hosts and models see come from
//! each error's `Display`. This check fails when one comes back. (`tests/typed_errors.py`
//! checks the same across `core/` and `cli/` in CI's layering phase.)

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The text with line comments blanked (newlines kept, so line numbers still hold).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The end (exclusive) of the item starting at `from`: its `{ … }` block, or its `;` when
/// that comes first (a `#[cfg(test)] use …;` must not swallow the code after it).
fn block_end(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let Some(open) = text[from..].find(['{', ';']).map(|i| from + i) else {
        return text.len();
    };
    if bytes[open] == b';' {
        return open + 1;
    }
    let mut depth = 0usize;
    for (i, b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Blanks (keeping newlines) the blocks that start at each `marker`: test modules.
fn blank_blocks(text: &str, marker: &str) -> String {
    let mut out = text.to_string();
    let mut at = 0;
    while let Some(i) = out[at..].find(marker).map(|i| at + i) {
        let end = block_end(&out, i);
        let blank: String = out[i..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(i..end, &blank);
        at = i + 1;
    }
    out
}

/// `(line, text)` of every `Result<…, String>`: a `Result` with two type arguments whose
/// error argument is `String`.
fn string_errors(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(i) = text[at..].find("Result<").map(|i| at + i) {
        at = i + "Result<".len();
        // `io::Result<T>` and friends have one argument; `MyResult<` is another name.
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let (mut depth, mut last_comma, mut j) = (1usize, None, at);
        while j < bytes.len() && depth > 0 {
            match bytes[j] {
                b'<' => depth += 1,
                b'>' if j > 0 && bytes[j - 1] != b'-' => depth -= 1,
                b',' if depth == 1 => last_comma = Some(j),
                _ => {}
            }
            j += 1;
        }
        if let Some(c) = last_comma
            && text[c + 1..j - 1].trim() == "String"
        {
            let line = text[..i].matches('\n').count() + 1;
            found.push((
                line,
                text[i..j].split_whitespace().collect::<Vec<_>>().join(" "),
            ));
        }
    }
    found
}

#[test]
fn no_result_with_a_string_error_outside_tests() {
    // The engine and the crates cut out of it (issue 19): the tool API, the built-in
    // tools and the policy keep the rule they had while they were engine modules.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = manifest.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "the engine's sources were not found");
    for sibling in ["tool-api", "tools", "policy"] {
        rust_files(&manifest.join("..").join(sibling).join("src"), &mut files);
    }
    files.sort();
    let mut offences = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let text = blank_blocks(&without_comments(&text), "#[cfg(test)]");
        for (line, what) in string_errors(&text) {
            let rel = path.strip_prefix(&src).unwrap_or(&path).display();
            offences.push(format!("{rel}:{line}: {what}"));
        }
    }
    assert!(
        offences.is_empty(),
        "errors are types in dcl-engine: give these a thiserror enum of their module \
         (texts unchanged) instead of String:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_check_sees_what_it_looks_for() {
    let code = "fn a() -> Result<Vec<u8>, String> {}\n\
                fn b() -> std::io::Result<String> {}\n\
                fn c() -> Result<BTreeMap<String, String>, MyError> {}\n\
                type D = BoxFuture<'_, Result<Value, String>>;\n\
                fn e() -> Result<impl Fn() -> u8, String> {}\n";
    let found: Vec<usize> = string_errors(code).into_iter().map(|(l, _)| l).collect();
    assert_eq!(found, vec![1, 4, 5]);
    let tests = "fn ok() {}\n#[cfg(test)]\nmod tests {\n fn t() -> Result<(), String> {}\n}\n";
    assert!(string_errors(&blank_blocks(tests, "#[cfg(test)]")).is_empty());
    assert_eq!(string_errors(tests).len(), 1);
    let after_use = "#[cfg(test)]\nuse x;\nfn f() -> Result<(), String> {}\n";
    assert_eq!(
        string_errors(&blank_blocks(after_use, "#[cfg(test)]")).len(),
        1
    );
}
