//! [`Dialect`]: which lines a session speaks, chosen once when it is built.

use dcl_protocol::{InitializeResponse, Message};

use super::event::Event;
use super::{claude, legacy, qoder};
use crate::options::{self, OutputFormat, SessionOptions};

/// The line shape the host's SDK reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Base {
    #[default]
    Claude,
    Qoder,
}

/// A session's dialect: a base shape (Claude, or Qoder's variant of it) plus, for hosts
/// that announce no SDK, the legacy lines before some of its lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dialect {
    base: Base,
    /// stream-json output: the only format with room for `tool_progress` and legacy lines.
    stream_json: bool,
    legacy_lines: bool,
}

impl Dialect {
    /// From the options the session is built with: `dialect`, `output_format` and
    /// `legacy_events` (legacy lines are stream-json only, and on unless turned off).
    pub fn of(opts: &SessionOptions) -> Dialect {
        let stream_json = opts.output_format.unwrap_or_default() == OutputFormat::StreamJson;
        Dialect::new(
            opts.dialect,
            stream_json,
            stream_json && opts.legacy_events.unwrap_or(true),
        )
    }

    pub fn new(base: options::Dialect, stream_json: bool, legacy_lines: bool) -> Dialect {
        Dialect {
            base: match base {
                options::Dialect::Claude => Base::Claude,
                options::Dialect::Qoder => Base::Qoder,
            },
            stream_json,
            legacy_lines,
        }
    }

    /// Qoder's lines in stream-json, as its SDK reads them.
    pub fn qoder_sdk() -> Dialect {
        Dialect::new(options::Dialect::Qoder, true, false)
    }

    /// The lines `event` becomes, in order: the legacy line first when there is one.
    /// (At most two: an iterator over them, so emitting a line allocates no list.)
    pub fn render(&self, event: Event<'_>) -> impl Iterator<Item = Message> + use<> {
        let extra = if self.legacy_lines {
            legacy::line(&event)
        } else {
            None
        };
        let base = match self.base {
            Base::Claude => claude::render(event, self.stream_json),
            Base::Qoder => qoder::render(event, self.stream_json),
        };
        extra.into_iter().chain(base)
    }

    /// [`Dialect::render`], collected: what the renderers' tests compare.
    #[cfg(test)]
    pub fn lines(&self, event: Event<'_>) -> Vec<Message> {
        self.render(event).collect()
    }

    /// Whether a running tool call's progress reaches the host at all (so a turn need not
    /// time calls nobody hears about).
    pub fn reports_tool_progress(&self) -> bool {
        match self.base {
            Base::Claude => claude::reads_tool_progress(self.stream_json),
            Base::Qoder => qoder::READS_TOOL_PROGRESS,
        }
    }

    /// Whether a `systemPrompt` of `""` means no system prompt (otherwise the default).
    pub fn empty_system_prompt_is_none(&self) -> bool {
        match self.base {
            Base::Claude => claude::EMPTY_SYSTEM_PROMPT_IS_NONE,
            Base::Qoder => qoder::EMPTY_SYSTEM_PROMPT_IS_NONE,
        }
    }

    /// Whether `system/init` is also sent before the `initialize` answer.
    pub fn init_before_initialize_answer(&self) -> bool {
        match self.base {
            Base::Claude => claude::INIT_BEFORE_INITIALIZE_ANSWER,
            Base::Qoder => qoder::INIT_BEFORE_INITIALIZE_ANSWER,
        }
    }

    /// The `initialize` answer as this dialect gives it.
    pub fn initialize_response(&self, response: InitializeResponse) -> InitializeResponse {
        match self.base {
            Base::Claude => response,
            Base::Qoder => qoder::initialize_response(response),
        }
    }

    /// The model catalogue's entry for the configured default: value and display name.
    pub fn default_model_entry(&self) -> (&'static str, &'static str) {
        match self.base {
            Base::Claude => claude::DEFAULT_MODEL_ENTRY,
            Base::Qoder => qoder::DEFAULT_MODEL_ENTRY,
        }
    }

    /// Whether the catalogue describes each model's limits (`isEnabled`,
    /// `context_config`, `thinking_config`).
    pub fn describes_model_limits(&self) -> bool {
        match self.base {
            Base::Claude => claude::DESCRIBES_MODEL_LIMITS,
            Base::Qoder => qoder::DESCRIBES_MODEL_LIMITS,
        }
    }
}
