//! `@` completion: the project's files (as git would see them: `.gitignore` respected,
//! through the `ignore` crate), ranked by nucleo's fuzzy matcher.

use std::path::Path;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

/// More files than this are not listed (a home directory started in by mistake).
const MAX_FILES: usize = 20_000;

pub fn list(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(rel) = entry.path().strip_prefix(root)
        {
            out.push(rel.to_string_lossy().into_owned());
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out.sort();
    out
}

/// The best `limit` of `files` for `query`, best first.
pub fn rank(files: &[String], query: &str, limit: usize) -> Vec<String> {
    if query.is_empty() {
        return files.iter().take(limit).cloned().collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    Pattern::parse(query, CaseMatching::Smart, Normalization::Smart)
        .match_list(files.iter(), &mut matcher)
        .into_iter()
        .take(limit)
        .map(|(f, _)| f.clone())
        .collect()
}

/// Command names ranked for `query`.
pub fn rank_names<'a>(names: impl Iterator<Item = &'a str>, query: &str) -> Vec<&'a str> {
    let names: Vec<&str> = names.collect();
    if query.is_empty() {
        return names;
    }
    let mut matcher = Matcher::new(Config::DEFAULT);
    Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart)
        .match_list(names, &mut matcher)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}
