//! Custom slash commands (and skills typed as `/name`): a prompt that starts with
//! `/name args` naming one is expanded by dcl before the model sees it. Consulted after
//! the built-in commands, so `/clear` stays dcl's own. A command's `model` runs its turn
//! on that model; its `allowed-tools` are allow rules for its turn only.

use dcl_protocol::{ContentBlock, MessageContent};

use super::{TurnContext, TurnState};
use crate::extensions;
use crate::session::QueuedPrompt;
use crate::session::hooks;
use dcl_events::hook_input::UserPromptExpansion;

/// What `/name args` becomes.
#[derive(Debug, Clone, PartialEq)]
struct Expansion {
    name: String,
    args: String,
    text: String,
    model: Option<String>,
    allowed_tools: Vec<String>,
    /// `command` or `skill`: the hook input's `command_source`.
    source: &'static str,
}

/// A UserPromptExpansion hook blocked the expansion (or stopped the turn): its reason.
#[derive(Debug, thiserror::Error)]
#[error("{reason}")]
pub(super) struct ExpansionBlocked {
    pub reason: String,
}

/// Returns `prompt` with a custom command expanded (unchanged when it names none) and the
/// UserPromptExpansion hooks' context for the model, and sets the turn's model and grants
/// from the command. `Err`: a hook blocked the expansion (or stopped the turn), its reason.
pub(super) async fn expand(
    ctx: &TurnContext,
    st: &mut TurnState,
    prompt: QueuedPrompt,
) -> Result<(QueuedPrompt, Vec<String>), ExpansionBlocked> {
    let text = prompt.message.message.content.text();
    let Some(found) = lookup(ctx, &text) else {
        return Ok((prompt, Vec::new()));
    };
    let expansion = UserPromptExpansion {
        expansion_type: "slash_command".into(),
        command_name: found.name.clone(),
        command_args: found.args.clone(),
        command_source: found.source.into(),
        prompt: text.clone(),
    };
    let v = hooks::fire(&ctx.hooks(), &expansion).await;
    if let Some(reason) = v.stop.or(v.block) {
        return Err(ExpansionBlocked { reason });
    }
    if let Some(model) = super::subagent::resolve_model(&ctx.core, found.model.as_deref()) {
        st.model = model;
    }
    if !found.allowed_tools.is_empty() {
        match ctx.grants.lock() {
            Ok(mut g) => g.extend(found.allowed_tools.iter().cloned()),
            Err(poisoned) => poisoned
                .into_inner()
                .extend(found.allowed_tools.iter().cloned()),
        }
    }
    let mut prompt = prompt;
    // Images and other blocks the host sent with the command stay with it.
    let mut blocks: Vec<ContentBlock> = prompt
        .message
        .message
        .content
        .clone()
        .into_blocks()
        .into_iter()
        .filter(|b| b.as_text().is_none())
        .collect();
    blocks.push(ContentBlock::text(format!(
        "<command-message>{name} is running\u{2026}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>",
        name = found.name,
        args = found.args
    )));
    blocks.push(ContentBlock::text(found.text));
    prompt.message.message.content = MessageContent::Blocks(blocks);
    Ok((prompt, v.additional_context))
}

fn lookup(ctx: &TurnContext, text: &str) -> Option<Expansion> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(at) => (&rest[..at], rest[at..].trim()),
        None => (rest, ""),
    };
    if name.is_empty() {
        return None;
    }
    extensions::read(&ctx.core.services.extensions, |e| {
        if let Some(c) = e.commands.get(name) {
            return Some(Expansion {
                name: c.name.clone(),
                args: args.to_string(),
                text: c.expand(args),
                model: c.model.clone(),
                allowed_tools: c.allowed_tools.clone(),
                source: "command",
            });
        }
        e.skills.get(name).map(|s| Expansion {
            name: s.name.clone(),
            args: args.to_string(),
            text: s.content(args),
            model: None,
            allowed_tools: s.allowed_tools.clone(),
            source: "skill",
        })
    })
}
