//! Every dcl -> host control request ([`DclRequest`]) and the `subtype` tag each carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::elicitation::ElicitationRequest;
use super::hooks::HookCallbackRequest;
use super::host_services::{
    FetchJobTokenRequest, FetchServiceAccountTokenRequest, MemoryShouldGenerateRequest,
    ResolveSessionArtifactsRequest, SkillEvolutionShouldReviewRequest,
};
use super::mcp::{McpMessageOut, McpOauthRequiredRequest};
use super::model::GetModelPolicyRequest;
use super::parse::{RequestParseError, normalized_request};
use super::permissions::CanUseToolRequest;

macro_rules! dcl_requests {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, )*) => {
        /// Every dcl -> host control request. Each struct carries its own `subtype` tag, so
        /// the enum serializes untagged; decode with [`DclRequest::parse`].
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(untagged)]
        pub enum DclRequest {
            $( $(#[$doc])* $variant($ty), )*
        }

        /// The `subtype` of every [`DclRequest`] variant.
        pub const DCL_REQUEST_SUBTYPES: &[&str] = &[$($name),*];

        impl DclRequest {
            pub fn subtype(&self) -> &'static str {
                match self {
                    $( DclRequest::$variant(_) => $name, )*
                }
            }

            /// Decodes a `request` object dcl sent (or would send), reading `subtype` and
            /// falling back to `type`.
            pub fn parse(request: &Value) -> Result<DclRequest, RequestParseError> {
                let (subtype, obj) = normalized_request(request, DCL_REQUEST_SUBTYPES)?;
                let value = Value::Object(obj);
                let invalid = |e: serde_json::Error| RequestParseError::Invalid {
                    subtype: subtype.clone(),
                    message: e.to_string(),
                };
                match subtype.as_str() {
                    $( $name => serde_json::from_value::<$ty>(value).map(DclRequest::$variant).map_err(invalid), )*
                    _ => Err(RequestParseError::Unknown(subtype.clone())),
                }
            }
        }

        $(
            impl From<$ty> for DclRequest {
                fn from(r: $ty) -> Self {
                    DclRequest::$variant(r)
                }
            }
        )*
    };
}

dcl_requests! {
    CanUseTool(CanUseToolRequest) = "can_use_tool",
    HookCallback(HookCallbackRequest) = "hook_callback",
    McpMessage(McpMessageOut) = "mcp_message",
    Elicitation(ElicitationRequest) = "elicitation",
    McpOauthRequired(McpOauthRequiredRequest) = "mcp_oauth_required",
    GetModelPolicy(GetModelPolicyRequest) = "get_model_policy",
    FetchServiceAccountToken(FetchServiceAccountTokenRequest) = "fetch_service_account_token",
    FetchJobToken(FetchJobTokenRequest) = "fetch_job_token",
    MemoryShouldGenerate(MemoryShouldGenerateRequest) = "memory_should_generate",
    SkillEvolutionShouldReview(SkillEvolutionShouldReviewRequest) = "skill_evolution_should_review",
    ResolveSessionArtifacts(ResolveSessionArtifactsRequest) = "resolve_session_artifacts",
}
