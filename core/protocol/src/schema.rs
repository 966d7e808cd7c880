//! JSON Schema of the protocol: [`Message`] plus every request/response payload, one document
//! with `$defs` (draft 2020-12). `cargo run -p dcl-protocol --bin export-schema` prints it; the
//! committed copy is `core/protocol/schema/dcl-protocol.schema.json`.
//!
//! The document describes lines **as dcl writes them** (schemars' serialize contract): a field
//! is required unless dcl may leave it out (`skip_serializing_if`), a few always-written
//! optional fields are required by [`require`], `system` lines are one branch per subtype,
//! and the vocabularies of [`crate::vocab`] are closed. The root is a line dcl writes to
//! stdout; `$defs` also has the host -> dcl payloads ([`HostRequest`], …), as their
//! serialized form. Decoding (serde) stays lenient: a host's line need not match.

use schemars::Schema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::*;

/// Adds `keys` to an object schema's `required` (a `#[schemars(transform)]` helper): for
/// fields dcl always writes although the type lets them be absent, so a host's line still
/// decodes.
pub fn require(schema: &mut Schema, keys: &[&str]) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let required = obj
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = required {
        for key in keys {
            if !list.iter().any(|v| v == key) {
                list.push(Value::String((*key).to_string()));
            }
        }
    }
}

/// The schema document (deterministic: same types, same output).
pub fn schema_document() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    macro_rules! define {
        ($($t:ty),* $(,)?) => { $( generator.subschema_for::<$t>(); )* };
    }
    define!(
        // host -> dcl requests
        HostRequest,
        AgentDefinition,
        // dcl -> host requests and the host's answers
        DclRequest,
        PermissionDecision,
        PermissionUpdate,
        HookOutput,
        McpMessageResponse,
        ElicitationResponse,
        McpOauthRequiredResponse,
        ModelPolicyResponse,
        TokenResponse,
        ShouldRunResponse,
        // dcl's answers to the host
        EmptyResponse,
        InitializeResponse,
        InterruptResponse,
        SetPermissionModeResponse,
        SetModelResponse,
        CancelAsyncMessageResponse,
        GetSettingsResponse,
        ApplyFlagSettingsResponse,
        McpStatusResponse,
        McpSetServersResponse,
        McpAuthenticateResponse,
        ContextUsageResponse,
        RewindFilesResponse,
        RewindResponse,
        ReloadPluginsResponse,
        ListPluginsResponse,
        ReloadSkillsResponse,
        PlanModeResponse,
        SetProxyResponse,
        GoalResponse,
        ClearGoalResponse,
        GoalMaxTurnsResponse,
        BackgroundTasksResponse,
        SideQuestionResponse,
        GetUsageInfoResponse,
        AccountInfoResponse,
        GetModelsResponse,
        AddDirectoriesResponse,
        GenerateSessionTitleResponse,
        UpdateQueuedMessageResponse,
        ListPermissionRulesResponse,
        GetHooksListingResponse,
        // typed system subtypes
        SystemInit,
        SystemStatus,
        SystemApiRetry,
        SystemThinkingTokens,
        SystemPermissionDenied,
        SystemInformational,
        SystemHookStarted,
        SystemHookProgress,
        SystemHookResponse,
        SystemCompactBoundary,
        SystemTaskStarted,
        SystemTaskProgress,
        SystemTaskNotification,
        SystemTaskUpdated,
        SystemSessionStateChanged,
        SystemBackgroundTasksChanged,
        SystemPlanModeChanged,
        ModelUsage,
    );
    generator.into_root_schema_for::<Message>().to_value()
}
