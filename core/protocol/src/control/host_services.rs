//! What dcl asks a Qoder host for: service-account and job tokens, whether to run memory
//! generation or skill review, and session artifacts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tags::{
    FetchJobTokenTag, FetchServiceAccountTokenTag, MemoryShouldGenerateTag,
    ResolveSessionArtifactsTag, SkillEvolutionShouldReviewTag,
};
use crate::content::Extra;

/// Qoder `fetch_service_account_token` (auth payload `serviceAccountTokenProvider: "host"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FetchServiceAccountTokenRequest {
    pub subtype: FetchServiceAccountTokenTag,
    /// `initial`, `expiring` or `unauthorized`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default)]
    pub required_scopes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `fetch_job_token` (auth payload `jobTokenProvider: "host"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FetchJobTokenRequest {
    pub subtype: FetchJobTokenTag,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `fetch_service_account_token` / `fetch_job_token`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenResponse {
    pub token: String,
    /// Milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `memory_should_generate`: ask the host whether to run memory generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryShouldGenerateRequest {
    pub subtype: MemoryShouldGenerateTag,
    #[serde(rename = "callbackId")]
    pub callback_id: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder `skill_evolution_should_review`: ask the host whether to review skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillEvolutionShouldReviewRequest {
    pub subtype: SkillEvolutionShouldReviewTag,
    #[serde(rename = "callbackId")]
    pub callback_id: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The host's answer to `memory_should_generate` / `skill_evolution_should_review`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShouldRunResponse {
    pub run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Qoder TS `resolve_session_artifacts`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResolveSessionArtifactsRequest {
    pub subtype: ResolveSessionArtifactsTag,
    pub local_session_id: String,
    pub cwd: String,
    #[serde(flatten)]
    pub extra: Extra,
}
