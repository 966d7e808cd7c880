//! Tools that talk to the user through the host rather than touch the machine:
//! `AskUserQuestion` (questions reach the host as `can_use_tool`, the answers come back in
//! `updatedInput.answers`) and `ExitPlanMode` (offered in plan mode; approving the plan
//! leaves plan mode).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::session::emit::TurnEmitter;
use crate::session::services::SessionCore;
use dcl_policy::permissions::PermissionMode;
use dcl_tool_api::{ProcessSpec, ToolOutput, ToolSpec, TurnHandle};

pub(crate) const ASK_USER_QUESTION: &str = "AskUserQuestion";
pub(crate) const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// The answer to an AskUserQuestion call when nobody can be asked.
pub(crate) const NO_ONE_TO_ASK: &str = "AskUserQuestion needs someone to answer, and this session has no interactive host (-p with text or json output). Decide yourself, or say what you need to know in your final answer.";

/// Whether `name` (one of the two) is offered now: AskUserQuestion when a host can answer,
/// ExitPlanMode in plan mode.
pub(crate) fn offered_now(name: &str, can_ask: bool, mode: PermissionMode) -> bool {
    match name {
        ASK_USER_QUESTION => can_ask,
        EXIT_PLAN_MODE => mode == PermissionMode::Plan,
        _ => false,
    }
}

/// AskUserQuestion's definition, built once per process.
pub(crate) fn ask_user_question_spec() -> ToolSpec {
    static SPEC: ProcessSpec = ProcessSpec::new(|| {
        ToolSpec::from_schema_text(
            ASK_USER_QUESTION,
            "Ask the user one to four multiple-choice questions when you need their decision to go on (requirements, preferences, a choice between approaches). Each question has a short header and two to four options; the user may also answer in their own words.",
            dcl_protocol::compact_schema!(include_bytes!("schemas/ask_user_question.json")),
        )
    });
    SPEC.get()
}

/// ExitPlanMode's definition, built once per process.
pub(crate) fn exit_plan_mode_spec() -> ToolSpec {
    static SPEC: ProcessSpec = ProcessSpec::new(|| {
        ToolSpec::from_schema_text(
            EXIT_PLAN_MODE,
            "Call this when you are in plan mode and have finished planning: present your plan for the user's approval. If they approve, plan mode ends and you may start making changes.",
            dcl_protocol::compact_schema!(include_bytes!("schemas/exit_plan_mode.json")),
        )
    });
    SPEC.get()
}

#[derive(Debug, Deserialize)]
struct Question {
    question: String,
}

#[derive(Debug, Deserialize)]
struct AskInput {
    questions: Vec<Question>,
    #[serde(default)]
    answers: Map<String, Value>,
}

/// An approved AskUserQuestion call; `input` is the host's `updatedInput` (with
/// `answers`) or the model's own input.
pub(super) fn answer_questions(input: Value) -> ToolOutput {
    let input: AskInput = match serde_json::from_value(input) {
        Ok(i) => i,
        Err(e) => {
            return ToolOutput::error(format!(
                "<tool_use_error>InputValidationError: {ASK_USER_QUESTION}: {e}</tool_use_error>"
            ));
        }
    };
    if input.answers.is_empty() {
        return ToolOutput::error(
            "The user did not answer (the host approved the question without answers).",
        );
    }
    let mut parts = Vec::new();
    for q in &input.questions {
        match input.answers.get(&q.question) {
            Some(Value::String(a)) => parts.push(format!("\"{}\"=\"{a}\"", q.question)),
            Some(other) => parts.push(format!("\"{}\"=\"{other}\"", q.question)),
            None => parts.push(format!("\"{}\"=(no answer)", q.question)),
        }
    }
    ToolOutput {
        content: dcl_protocol::ToolResultContent::Text(format!(
            "User has answered your questions: {}. You can now continue with the user's answers in mind.",
            parts.join(", ")
        )),
        is_error: false,
        structured: Some(
            json!({"questions": input.questions.iter().map(|q| &q.question).collect::<Vec<_>>(),
            "answers": input.answers}),
        ),
    }
}

/// An approved ExitPlanMode call: `input` is what the host approved (it may have edited
/// the plan the model proposed).
pub(super) fn exit_plan_mode(turn: &dyn TurnHandle, input: Value) -> ToolOutput {
    let plan = input
        .get("plan")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let proposed = turn.proposed_input();
    let edited = proposed.get("plan").and_then(Value::as_str) != Some(plan.as_str());
    if !turn.end_plan_mode() {
        return ToolOutput::error("Not in plan mode: there is no plan to approve.");
    }
    ToolOutput {
        content: dcl_protocol::ToolResultContent::Text(format!(
            "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n## Approved Plan:\n{plan}"
        )),
        is_error: false,
        structured: Some(json!({"plan": plan, "isAgent": false, "planWasEdited": edited})),
    }
}

/// Leaves plan mode for the default one and says so on the stream; false when the
/// session was not in plan mode.
pub(super) fn end_plan_mode(core: &SessionCore, emitter: &TurnEmitter) -> bool {
    let was_plan = core.state.with(|s| {
        let was = s.live.permission_mode == PermissionMode::Plan;
        if was {
            s.live.permission_mode = PermissionMode::Default;
        }
        was
    });
    if was_plan {
        emitter.permission_mode_changed(PermissionMode::Default);
    }
    was_plan
}

#[cfg(test)]
mod tests {
    /// The two definitions' schemas are text offered as it is: the compact form
    /// `serde_json` writes for their values, or counted sizes and the wire would disagree.
    #[test]
    fn the_schemas_are_the_compact_json_of_their_values() {
        for spec in [ask_user_question_spec(), exit_plan_mode_spec()] {
            let written = serde_json::to_string(spec.input_schema()).expect("a value serializes");
            assert_eq!(
                spec.schema_text(),
                Some(written.as_str()),
                "{}",
                spec.name()
            );
            assert_eq!(spec.input_schema()["type"], "object", "{}", spec.name());
        }
    }

    use super::*;

    #[test]
    fn answers_are_reported_per_question() {
        let out = answer_questions(json!({
            "questions": [{"question": "Which colour?", "header": "Colour", "options": [], "multiSelect": false}],
            "answers": {"Which colour?": "Blue"}
        }));
        assert!(!out.is_error);
        assert!(out.content.to_text().contains("\"Which colour?\"=\"Blue\""));
    }

    #[test]
    fn an_approval_without_answers_is_an_error() {
        let out = answer_questions(json!({"questions": [{"question": "Q?"}]}));
        assert!(out.is_error);
    }

    #[test]
    fn specs_follow_the_session() {
        let names = |can_ask, mode| -> Vec<String> {
            [ask_user_question_spec(), exit_plan_mode_spec()]
                .into_iter()
                .filter(|s| offered_now(s.name(), can_ask, mode))
                .map(|s| s.name().to_string())
                .collect()
        };
        assert_eq!(
            names(true, PermissionMode::Default),
            vec![ASK_USER_QUESTION]
        );
        assert_eq!(names(false, PermissionMode::Plan), vec![EXIT_PLAN_MODE]);
        assert!(names(false, PermissionMode::Default).is_empty());
    }

    #[test]
    fn the_definitions_are_built_once() {
        assert!(ToolSpec::ptr_eq(
            &ask_user_question_spec(),
            &ask_user_question_spec()
        ));
        assert!(ToolSpec::ptr_eq(
            &exit_plan_mode_spec(),
            &exit_plan_mode_spec()
        ));
    }
}
