//! JSON Schema of the protocol: [`Message`] plus every request/response payload, one document
//! with `$defs` (draft 2020-12). `cargo run -p dcl-protocol --bin export-schema` prints it; the
//! committed copy is `core/protocol/schema/dcl-protocol.schema.json`.

use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::*;

/// The schema document (deterministic: same types, same output).
pub fn schema_document() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
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
