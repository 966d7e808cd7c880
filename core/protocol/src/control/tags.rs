//! The `subtype` tag of each dcl -> host request, one single-variant enum per request.
//! Kept apart from the requests so the subject modules that use a tag import only this
//! leaf, and `dcl_request` (which names every subject's request) is imported by none.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

macro_rules! request_tags {
    ($( $(#[$doc:meta])* $tag:ident::$variant:ident = $name:literal, )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
            pub enum $tag {
                #[default]
                #[serde(rename = $name)]
                $variant,
            }
        )*
    };
}

request_tags! {
    CanUseToolTag::CanUseTool = "can_use_tool",
    HookCallbackTag::HookCallback = "hook_callback",
    McpMessageTag::McpMessage = "mcp_message",
    ElicitationTag::Elicitation = "elicitation",
    McpOauthRequiredTag::McpOauthRequired = "mcp_oauth_required",
    GetModelPolicyTag::GetModelPolicy = "get_model_policy",
    FetchServiceAccountTokenTag::FetchServiceAccountToken = "fetch_service_account_token",
    FetchJobTokenTag::FetchJobToken = "fetch_job_token",
    MemoryShouldGenerateTag::MemoryShouldGenerate = "memory_should_generate",
    SkillEvolutionShouldReviewTag::SkillEvolutionShouldReview = "skill_evolution_should_review",
    ResolveSessionArtifactsTag::ResolveSessionArtifacts = "resolve_session_artifacts",
}
