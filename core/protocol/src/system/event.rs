//! [`SystemEvent`]: a `system` line decoded by subtype, and the schema of a `system` line;
//! both generated from one list of the typed subtypes.

use schemars::JsonSchema;

use super::compact::SystemCompactBoundary;
use super::hooks::{SystemHookProgress, SystemHookResponse, SystemHookStarted};
use super::init::SystemInit;
use super::session::{
    SystemApiRetry, SystemInformational, SystemPermissionDenied, SystemPlanModeChanged,
    SystemSessionStateChanged, SystemStatus, SystemThinkingTokens,
};
use super::subtype::{SystemConvertError, SystemSubtype};
use super::tasks::{
    SystemBackgroundTasksChanged, SystemTaskNotification, SystemTaskProgress, SystemTaskStarted,
    SystemTaskUpdated,
};
use crate::Message;
use crate::messages::SystemMessage;

macro_rules! system_subtypes {
    ($( $(#[$doc:meta])* $variant:ident($ty:ident) = $name:literal, )*) => {
        $(
            impl SystemSubtype for $ty {
                const SUBTYPE: &'static str = $name;
            }

            impl From<$ty> for SystemMessage {
                fn from(value: $ty) -> Self {
                    value.to_system_message()
                }
            }

            impl From<$ty> for Message {
                fn from(value: $ty) -> Self {
                    Message::System(value.to_system_message())
                }
            }

            impl TryFrom<&SystemMessage> for $ty {
                type Error = SystemConvertError;
                fn try_from(message: &SystemMessage) -> Result<Self, Self::Error> {
                    <$ty as SystemSubtype>::from_system_message(message)
                }
            }

            impl From<$ty> for SystemEvent {
                fn from(value: $ty) -> Self {
                    SystemEvent::$variant(value)
                }
            }
        )*

        /// A `system` line decoded by subtype; anything else (or a known subtype of the wrong
        /// shape) is [`SystemEvent::Other`].
        #[derive(Debug, Clone, PartialEq)]
        pub enum SystemEvent {
            $( $(#[$doc])* $variant($ty), )*
            Other(SystemMessage),
        }

        /// The subtypes [`SystemEvent`] types.
        pub const SYSTEM_SUBTYPES: &[&str] = &[$($name),*];

        /// `(subtype, schema name)`: the `$defs` entry of each typed subtype.
        pub const SYSTEM_SUBTYPE_SCHEMAS: &[(&str, &str)] = &[$(($name, stringify!($ty))),*];

        /// The schema of a `system` line: one branch per typed subtype, so `subtype` is closed
        /// and each branch lists its own required fields. Never built; it only describes.
        #[derive(JsonSchema)]
        #[serde(tag = "subtype")]
        #[allow(dead_code)]
        enum SystemLineSchema {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($ty), )*
        }

        impl JsonSchema for SystemMessage {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "SystemMessage".into()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <SystemLineSchema as JsonSchema>::json_schema(generator)
            }
        }

        impl SystemEvent {
            pub fn subtype(&self) -> &str {
                match self {
                    $( SystemEvent::$variant(_) => $name, )*
                    SystemEvent::Other(m) => &m.subtype,
                }
            }
        }

        impl From<&SystemMessage> for SystemEvent {
            fn from(message: &SystemMessage) -> Self {
                match message.subtype.as_str() {
                    $(
                        $name => match <$ty as SystemSubtype>::from_system_message(message) {
                            Ok(v) => SystemEvent::$variant(v),
                            Err(_) => SystemEvent::Other(message.clone()),
                        },
                    )*
                    _ => SystemEvent::Other(message.clone()),
                }
            }
        }

        impl From<SystemEvent> for SystemMessage {
            fn from(event: SystemEvent) -> Self {
                match event {
                    $( SystemEvent::$variant(v) => v.to_system_message(), )*
                    SystemEvent::Other(m) => m,
                }
            }
        }
    };
}

system_subtypes! {
    Init(SystemInit) = "init",
    Status(SystemStatus) = "status",
    ApiRetry(SystemApiRetry) = "api_retry",
    ThinkingTokens(SystemThinkingTokens) = "thinking_tokens",
    PermissionDenied(SystemPermissionDenied) = "permission_denied",
    Informational(SystemInformational) = "informational",
    HookStarted(SystemHookStarted) = "hook_started",
    HookProgress(SystemHookProgress) = "hook_progress",
    HookResponse(SystemHookResponse) = "hook_response",
    CompactBoundary(SystemCompactBoundary) = "compact_boundary",
    TaskStarted(SystemTaskStarted) = "task_started",
    TaskProgress(SystemTaskProgress) = "task_progress",
    TaskNotification(SystemTaskNotification) = "task_notification",
    TaskUpdated(SystemTaskUpdated) = "task_updated",
    SessionStateChanged(SystemSessionStateChanged) = "session_state_changed",
    BackgroundTasksChanged(SystemBackgroundTasksChanged) = "background_tasks_changed",
    PlanModeChanged(SystemPlanModeChanged) = "plan_mode_changed",
}

impl SystemMessage {
    /// This line decoded by subtype (see [`SystemEvent`]).
    pub fn typed(&self) -> SystemEvent {
        SystemEvent::from(self)
    }
}
