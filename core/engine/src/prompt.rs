//! The default system prompt and the environment facts appended to it.

use std::path::Path;

use dcl_policy::settings::Settings;

const DEFAULT_PROMPT: &str = "You are dcl, a coding agent working in the user's project. \
Use the tools to read, search, edit and run code; prefer small, verified steps. \
Read files before changing them, keep edits minimal and in the project's style, \
and run the project's checks when you change behaviour. \
Never expose secrets, and ask before doing anything destructive. \
Answer concisely; say what you changed and what you could not do.";

const EXPLANATORY: &str = "You are in the Explanatory output style: besides doing the task, \
explain the implementation choices you make and the patterns of the codebase you meet. \
Before and after writing code, add short insights (marked `Insight`) about why it is done \
this way, the trade-offs, and what is specific to this project rather than general \
programming knowledge. Keep them brief and relevant to the code at hand.";

const LEARNING: &str = "You are in the Learning output style: help the user learn while \
the task gets done. Explain your reasoning and the codebase's patterns with short insights \
(marked `Insight`), and where a small, meaningful piece of code (a design decision, a \
business rule, an error-handling choice of 5 to 10 lines) is to be written, ask the user to \
write it: prepare the surrounding code, mark the spot with a TODO(human) comment, and say \
exactly what to write and why it matters. Do the rest of the work yourself.";

/// The output style in force (`outputStyle` in settings): its name as `system/init` and
/// the `initialize` answer report it, and the instructions added to the system prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputStyle {
    pub name: String,
    /// `None` for `default`.
    pub instructions: Option<String>,
    /// Why the configured style could not be used (the session then uses `default`).
    pub warning: Option<String>,
}

impl OutputStyle {
    /// `default`, `Explanatory` or `Learning`.
    pub fn built_in(name: &str) -> Option<OutputStyle> {
        let instructions = match name {
            "default" => None,
            "Explanatory" => Some(EXPLANATORY),
            "Learning" => Some(LEARNING),
            _ => return None,
        };
        Some(OutputStyle {
            name: name.to_string(),
            instructions: instructions.map(str::to_string),
            warning: None,
        })
    }

    /// A custom style from its Markdown file (front matter left out).
    pub fn custom(name: &str, text: &str, path: &Path) -> OutputStyle {
        let body = strip_front_matter(text).trim();
        OutputStyle {
            name: name.to_string(),
            instructions: (!body.is_empty()).then(|| body.to_string()),
            warning: body
                .is_empty()
                .then(|| format!("output style {} is empty", path.display())),
        }
    }

    /// The default style, with the reason the configured one was not used.
    /// A configured style dcl has no file for: reported under its configured name (as the
    /// reference does), with the warning, and the default instructions (none).
    pub fn unavailable(name: &str, warning: String) -> OutputStyle {
        OutputStyle {
            name: name.to_string(),
            instructions: None,
            warning: Some(warning),
        }
    }
}

/// A Markdown file's body without its leading `---` front matter.
fn strip_front_matter(text: &str) -> &str {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return text;
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            after.split_once('\n').map_or("", |(_, body)| body)
        }
        None => text,
    }
}

/// The system prompt with the output style's instructions after it.
pub fn with_output_style(prompt: Option<String>, style: &OutputStyle) -> Option<String> {
    let Some(instructions) = &style.instructions else {
        return prompt;
    };
    let section = format!("# Output style: {}\n{instructions}", style.name);
    Some(match prompt {
        Some(p) => format!("{p}\n\n{section}"),
        None => section,
    })
}

/// The system prompt of a request: the effective prompt plus the memory files.
pub fn with_memory(prompt: Option<String>, memory: &[crate::memory::MemoryFile]) -> Option<String> {
    match (prompt, crate::memory::section(memory)) {
        (Some(p), Some(m)) => Some(format!("{p}\n\n{m}")),
        (p, None) => p,
        (None, m) => m,
    }
}

/// The effective system prompt.
///
/// `custom`: `None` → the default prompt; `Some("")` → no prompt at all when
/// `empty_means_none` (the Claude dialect), the default otherwise (Qoder).
pub fn system_prompt(
    custom: Option<&str>,
    append: Option<&str>,
    empty_means_none: bool,
    cwd: &Path,
) -> Option<String> {
    let base = match custom {
        Some("") if empty_means_none => None,
        Some("") | None => Some(format!("{DEFAULT_PROMPT}\n\n{}", environment(cwd))),
        Some(text) => Some(text.to_string()),
    };
    match (base, append.filter(|a| !a.is_empty())) {
        (Some(b), Some(a)) => Some(format!("{b}\n\n{a}")),
        (None, Some(a)) => Some(a.to_string()),
        (b, None) => b,
    }
}

fn environment(cwd: &Path) -> String {
    format!(
        "<env>\nWorking directory: {}\nPlatform: {}\nToday's date: {}\n</env>",
        cwd.display(),
        std::env::consts::OS,
        chrono::Utc::now().format("%Y-%m-%d"),
    )
}

/// The output style the settings name, resolved (here rather than in the settings, which
/// know no prompt): the built-ins' instructions, or a
/// custom style's from `output-styles/<name>.md` (the highest-precedence folder's, its
/// front matter left out). An unknown name falls back to `default` with a warning.
pub fn resolved_output_style(settings: &Settings) -> OutputStyle {
    let name = settings.output_style();
    if let Some(style) = OutputStyle::built_in(&name) {
        return style;
    }
    let file = settings
        .folder_dirs("output-styles")
        .into_iter()
        .rev()
        .map(|d| d.join(format!("{name}.md")))
        .find(|p| p.is_file());
    let read = file.as_ref().map(std::fs::read_to_string);
    match (file, read) {
        (Some(path), Some(Ok(text))) => OutputStyle::custom(&name, &text, &path),
        (Some(path), Some(Err(e))) => OutputStyle::unavailable(
            &name,
            format!(
                "outputStyle {name:?}: cannot read {}: {e}; using the default style's instructions",
                path.display()
            ),
        ),
        _ => OutputStyle::unavailable(
            &name,
            format!(
                "outputStyle {name:?}: no such style (known: {}); using the default style's instructions",
                settings.available_output_styles().join(", ")
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_style_adds_its_instructions_and_default_adds_none() {
        let default = OutputStyle::built_in("default").unwrap();
        assert_eq!(
            with_output_style(Some("base".into()), &default).as_deref(),
            Some("base")
        );
        let custom = OutputStyle::custom(
            "Pirate",
            "---\nname: Pirate\ndescription: arr\n---\nSpeak like a pirate.\n",
            Path::new("/x/Pirate.md"),
        );
        assert_eq!(custom.instructions.as_deref(), Some("Speak like a pirate."));
        let p = with_output_style(Some("base".into()), &custom).unwrap();
        assert_eq!(p, "base\n\n# Output style: Pirate\nSpeak like a pirate.");
        assert!(
            with_output_style(None, &custom)
                .unwrap()
                .starts_with("# Output style")
        );
        assert_eq!(strip_front_matter("no front matter"), "no front matter");
    }

    #[test]
    fn empty_prompt_means_none_only_for_claude() {
        let cwd = Path::new("/tmp");
        assert_eq!(system_prompt(Some(""), None, true, cwd), None);
        assert!(system_prompt(Some(""), None, false, cwd).is_some_and(|p| p.contains("dcl")));
        assert_eq!(
            system_prompt(Some(""), Some("extra"), true, cwd).as_deref(),
            Some("extra")
        );
        assert_eq!(
            system_prompt(Some("mine"), Some("extra"), true, cwd).as_deref(),
            Some("mine\n\nextra")
        );
    }

    #[test]
    fn the_named_output_style_resolves_to_its_instructions() {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        write(
            &home.path().join(".claude/output-styles/Terse.md"),
            "---
name: Terse
description: short
---
Be terse.",
        );
        write(
            &cwd.path().join(".dcl/output-styles/Terse.md"),
            "Project terse.",
        );
        let load = |style: &str| {
            let flag = format!(r#"{{"outputStyle":"{style}"}}"#);
            resolved_output_style(
                &Settings::load(Some(home.path()), cwd.path(), None, Some(&flag)).unwrap(),
            )
        };
        let custom = load("Terse");
        assert_eq!(custom.name, "Terse");
        // The project folder wins over the user's.
        assert_eq!(custom.instructions.as_deref(), Some("Project terse."));
        assert!(custom.warning.is_none());
        let learning = load("Learning");
        assert_eq!(learning.name, "Learning");
        assert!(learning.instructions.unwrap().contains("learn"));
        let default = load("default");
        assert!(default.instructions.is_none());
        let unknown = load("Nope");
        // Named as configured (the reference reports it so), with no instructions.
        assert_eq!(unknown.name, "Nope");
        assert!(unknown.instructions.is_none());
        assert!(unknown.warning.unwrap().contains("no such style"));
        std::fs::remove_file(cwd.path().join(".dcl/output-styles/Terse.md")).unwrap();
        assert_eq!(load("Terse").instructions.as_deref(), Some("Be terse."));
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}
