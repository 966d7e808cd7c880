//! `dcl mcp add|add-json|list|get|remove`: manage the MCP servers of the three config scopes
//! (see `dcl_mcp::config_store`). The file logic lives in dcl-mcp; this is argument parsing
//! (clap) and output for people.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args as ClapArgs, Parser, Subcommand};
use dcl_mcp::config_store::{self, InvalidScope, Scope, StoreError};
use dcl_mcp::{ConnectionStatus, McpManager, McpOptions, NoHost, ServerConfig, ServerStatus};
use serde_json::{Map, Value, json};

/// Why a `dcl mcp` command failed; `main` prints `Error: {it}`.
#[derive(Debug, thiserror::Error)]
pub enum McpCmdError {
    #[error("unknown `dcl mcp` command {0:?}\n\n{USAGE}")]
    UnknownCommand(String),
    /// `sub`: the `dcl mcp` subcommand the option was given to.
    #[error("unknown option {option:?} for `dcl mcp {sub}`\n\n{USAGE}")]
    UnknownOption { option: String, sub: String },
    /// clap's own message (a value parser's, or clap's first line).
    #[error("{0}")]
    Arguments(String),
    /// `needs`: what the command is missing, e.g. "exactly one server name".
    #[error("`dcl mcp {command}` needs {needs}\n\n{USAGE}")]
    MissingOperands {
        command: &'static str,
        needs: &'static str,
    },
    #[error(
        "neither DCL_CONFIG_DIR nor HOME is set: cannot find the user MCP config (~/.dcl/mcp.json)"
    )]
    NoHome,
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    #[error("invalid server name {0:?}: use only letters, digits, '-' and '_'")]
    InvalidName(String),
    #[error("--header applies to http and sse servers only")]
    HeaderForStdio,
    #[error("--env applies to stdio servers only")]
    EnvForRemote,
    #[error("an {transport} server takes one URL; unexpected arguments: {}", .args.join(" "))]
    ExtraArguments {
        transport: String,
        args: Vec<String>,
    },
    #[error("invalid JSON for {name:?}: {source}")]
    InvalidJson {
        name: String,
        source: serde_json::Error,
    },
    /// A server's JSON given to `add-json`, named.
    #[error("{name:?}: {error}")]
    InvalidServer {
        name: String,
        error: dcl_mcp::ConfigError,
    },
    #[error("{0}")]
    Config(#[from] dcl_mcp::ConfigError),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("`dcl mcp list` takes no arguments (got {0:?})")]
    ListArguments(String),
    #[error("No MCP server named {0:?} is configured")]
    NotConfigured(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// A value given to an option of `dcl mcp add` that it cannot take.
#[derive(Debug, thiserror::Error)]
enum BadValue {
    #[error("invalid transport {0:?}: expected stdio, http or sse")]
    Transport(String),
    #[error("invalid --env {0:?}: expected KEY=VALUE")]
    Env(String),
    #[error("invalid --header {0:?}: expected \"Name: value\"")]
    Header(String),
}

const USAGE: &str = "Usage: dcl mcp <command>

Commands:
  add [options] <name> <command-or-url> [args...]
                               add a server; options go before <name>, and `--` may
                               separate the server's own command line:
                                 dcl mcp add -e KEY=VAL files -- npx -y server-files /tmp
    -s, --scope <scope>        local (default: this project, only you), project
                               (<cwd>/.mcp.json, shared) or user (~/.dcl/mcp.json)
    -t, --transport <kind>     stdio (default), http or sse
    -e, --env KEY=VALUE        environment of a stdio server (repeatable)
    -H, --header \"Name: value\" HTTP header of an http/sse server (repeatable)
  add-json [-s <scope>] <name> '<json>'
                               add a server from its JSON, e.g.
                               '{\"type\":\"http\",\"url\":\"https://host/mcp\"}'
  list                         every configured server, with a live connection check
  get <name>                   one server's configuration and status
  remove [-s <scope>] <name>   remove a server (the scope is needed if several have it)
";

#[derive(Debug, Parser)]
#[command(
    name = "dcl mcp",
    bin_name = "dcl mcp",
    no_binary_name = true,
    disable_help_subcommand = true,
    override_help = USAGE
)]
struct McpCli {
    #[command(subcommand)]
    command: Option<McpCommand>,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Add a server; options go before <name>.
    Add(AddArgs),
    /// Add a server from its JSON.
    #[command(name = "add-json")]
    AddJson(AddJsonArgs),
    /// Every configured server, with a live connection check.
    List(ListArgs),
    /// One server's configuration and status.
    Get(GetArgs),
    /// Remove a server.
    #[command(alias = "rm")]
    Remove(RemoveArgs),
    /// This help.
    Help,
}

#[derive(Debug, ClapArgs)]
struct AddArgs {
    /// local (default), project or user.
    #[arg(short, long, value_parser = parse_scope)]
    scope: Option<Scope>,
    /// stdio (default), http or sse.
    #[arg(short, long, value_parser = parse_transport, default_value = "stdio")]
    transport: String,
    /// KEY=VALUE environment of a stdio server (repeatable).
    #[arg(short, long = "env", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// "Name: value" HTTP header of an http/sse server (repeatable).
    #[arg(short = 'H', long = "header", value_parser = parse_header)]
    header: Vec<(String, String)>,
    /// The server's name, its command or URL, then the command's own arguments (taken
    /// as they are, options included).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "NAME COMMAND-OR-URL ARGS"
    )]
    rest: Vec<String>,
}

#[derive(Debug, ClapArgs)]
struct AddJsonArgs {
    #[arg(short, long, value_parser = parse_scope)]
    scope: Option<Scope>,
    /// The server's name and its JSON.
    #[arg(value_name = "NAME JSON")]
    rest: Vec<String>,
}

#[derive(Debug, ClapArgs)]
struct ListArgs {
    /// Nothing: present only so extra words get dcl's own message.
    #[arg(hide = true, allow_hyphen_values = true)]
    extra: Vec<String>,
}

#[derive(Debug, ClapArgs)]
struct GetArgs {
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

#[derive(Debug, ClapArgs)]
struct RemoveArgs {
    #[arg(short, long, value_parser = parse_scope)]
    scope: Option<Scope>,
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

impl AddArgs {
    /// The name, the command or URL, and the command's arguments. `--` may also come
    /// between the name and the command: clap, already taking the words as they are,
    /// keeps it there; it is a separator, not an argument.
    fn words(&self) -> Vec<String> {
        let mut words = self.rest.clone();
        if words.get(1).is_some_and(|w| w == "--") {
            words.remove(1);
        }
        words
    }
}

fn parse_scope(v: &str) -> Result<Scope, InvalidScope> {
    v.parse()
}

fn parse_transport(v: &str) -> Result<String, BadValue> {
    match v {
        "stdio" | "http" | "sse" => Ok(v.to_string()),
        other => Err(BadValue::Transport(other.to_string())),
    }
}

fn parse_env(v: &str) -> Result<(String, String), BadValue> {
    v.split_once('=')
        .filter(|(k, _)| !k.trim().is_empty())
        .map(|(k, val)| (k.trim().to_string(), val.to_string()))
        .ok_or_else(|| BadValue::Env(v.to_string()))
}

fn parse_header(v: &str) -> Result<(String, String), BadValue> {
    v.split_once(':')
        .filter(|(k, _)| !k.trim().is_empty())
        .map(|(k, val)| (k.trim().to_string(), val.trim().to_string()))
        .ok_or_else(|| BadValue::Header(v.to_string()))
}

/// Runs `dcl … mcp <subcommand> …`; `argv` is the whole command line after the program name.
pub fn run(argv: Vec<String>) -> Result<ExitCode, McpCmdError> {
    let rest: Vec<String> = match argv.iter().position(|a| a == "mcp") {
        Some(i) => argv[i + 1..].to_vec(),
        None => Vec::new(),
    };
    let command = match McpCli::try_parse_from(&rest) {
        Ok(cli) => cli.command,
        Err(e) => return clap_error(e, &rest),
    };
    let command = match command {
        None | Some(McpCommand::Help) => {
            print!("{USAGE}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(c) => c,
    };
    let home = home_dir()?;
    let cwd = std::env::current_dir().map_err(McpCmdError::CurrentDir)?;
    match command {
        McpCommand::Add(a) => add(a, &home, &cwd),
        McpCommand::AddJson(a) => add_json(a, &home, &cwd),
        McpCommand::List(a) => list(&a.extra, &home, &cwd),
        McpCommand::Get(a) => get(&a.names, &home, &cwd),
        McpCommand::Remove(a) => remove(a.scope, &a.names, &home, &cwd),
        McpCommand::Help => Ok(ExitCode::SUCCESS),
    }
}

/// Help is printed and succeeds; every other clap error becomes one of dcl's messages.
fn clap_error(e: clap::Error, argv: &[String]) -> Result<ExitCode, McpCmdError> {
    let sub = argv.first().map(String::as_str).unwrap_or("");
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            Ok(ExitCode::SUCCESS)
        }
        ErrorKind::InvalidSubcommand => Err(McpCmdError::UnknownCommand(
            context(ContextKind::InvalidSubcommand).unwrap_or_else(|| sub.to_string()),
        )),
        ErrorKind::UnknownArgument => Err(McpCmdError::UnknownOption {
            option: context(ContextKind::InvalidArg).unwrap_or_default(),
            sub: sub.to_string(),
        }),
        // A value parser's own message says what is wrong with the value.
        ErrorKind::ValueValidation => Err(McpCmdError::Arguments(
            std::error::Error::source(&e)
                .map(|s| s.to_string())
                .unwrap_or_else(|| rendered(&e)),
        )),
        _ => Err(McpCmdError::Arguments(rendered(&e))),
    }
}

/// clap's message without its `error: ` prefix and usage footer.
fn rendered(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// dcl home, where sessions read the user's `mcp.json`: `DCL_CONFIG_DIR`, else `~/.dcl`.
fn home_dir() -> Result<PathBuf, McpCmdError> {
    match std::env::var_os("DCL_CONFIG_DIR").filter(|v| !v.is_empty()) {
        Some(d) => Ok(PathBuf::from(d)),
        None => dcl_store::home::user_home(|k| std::env::var(k).ok())
            .map(|h| h.join(".dcl"))
            .ok_or(McpCmdError::NoHome),
    }
}

fn check_name(name: &str) -> Result<(), McpCmdError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(McpCmdError::InvalidName(name.to_string()))
    }
}

fn add(a: AddArgs, home: &Path, cwd: &Path) -> Result<ExitCode, McpCmdError> {
    let scope = a.scope.unwrap_or(Scope::Local);
    let words = a.words();
    let transport = a.transport;
    let env: Map<String, Value> = a.env.into_iter().map(|(k, v)| (k, json!(v))).collect();
    let headers: Map<String, Value> = a.header.into_iter().map(|(k, v)| (k, json!(v))).collect();
    // Words are taken as they are from the first one on, so an unknown option before
    // the name lands here.
    if let Some(option) = words.first().filter(|w| w.starts_with('-') && w.len() > 1) {
        return Err(McpCmdError::UnknownOption {
            option: option.clone(),
            sub: "add".into(),
        });
    }
    let mut positionals = words.into_iter();
    let (Some(name), Some(target)) = (positionals.next(), positionals.next()) else {
        return Err(McpCmdError::MissingOperands {
            command: "add",
            needs: "a name and a command or URL",
        });
    };
    let server_args: Vec<String> = positionals.collect();
    check_name(&name)?;
    let server = if transport == "stdio" {
        if !headers.is_empty() {
            return Err(McpCmdError::HeaderForStdio);
        }
        let mut o = Map::new();
        o.insert("type".into(), json!("stdio"));
        o.insert("command".into(), json!(target));
        o.insert("args".into(), json!(server_args));
        if !env.is_empty() {
            o.insert("env".into(), Value::Object(env));
        }
        Value::Object(o)
    } else {
        if !env.is_empty() {
            return Err(McpCmdError::EnvForRemote);
        }
        if !server_args.is_empty() {
            return Err(McpCmdError::ExtraArguments {
                transport,
                args: server_args,
            });
        }
        let mut o = Map::new();
        o.insert("type".into(), json!(transport));
        o.insert("url".into(), json!(target));
        if !headers.is_empty() {
            o.insert("headers".into(), Value::Object(headers));
        }
        Value::Object(o)
    };
    let path = config_store::add_server(scope, home, cwd, &name, &server)?;
    let config = ServerConfig::from_json(&name, &server)?;
    let what = match &config {
        ServerConfig::Http { url, .. } | ServerConfig::Sse { url, .. } => format!("URL: {url}"),
        _ => format!("command: {}", summary(&config)),
    };
    println!(
        "Added {} MCP server {name} with {what} to {scope} config",
        config.kind()
    );
    println!("File modified: {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn add_json(a: AddJsonArgs, home: &Path, cwd: &Path) -> Result<ExitCode, McpCmdError> {
    let scope = a.scope.unwrap_or(Scope::Local);
    let positionals = a.rest;
    let [name, text] = positionals.as_slice() else {
        return Err(McpCmdError::MissingOperands {
            command: "add-json",
            needs: "a name and the server's JSON",
        });
    };
    check_name(name)?;
    let server: Value = serde_json::from_str(text).map_err(|source| McpCmdError::InvalidJson {
        name: name.clone(),
        source,
    })?;
    let config =
        ServerConfig::from_json(name, &server).map_err(|error| McpCmdError::InvalidServer {
            name: name.clone(),
            error,
        })?;
    let path = config_store::add_server(scope, home, cwd, name, &server)?;
    println!(
        "Added {} MCP server {name} to {scope} config",
        config.kind()
    );
    println!("File modified: {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn list(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, McpCmdError> {
    if let Some(extra) = args.first() {
        return Err(McpCmdError::ListArguments(extra.clone()));
    }
    let all = config_store::load_all(home, cwd)?;
    if all.is_empty() {
        println!("No MCP servers configured. Use `dcl mcp add` to add a server.");
        return Ok(ExitCode::SUCCESS);
    }
    println!("Checking MCP server health...\n");
    let (statuses, held) = check(&all, cwd)?;
    for (name, (config, _scope)) in &all {
        let status = statuses.iter().find(|s| &s.name == name);
        let health = match held.contains(name) {
            true => NOT_APPROVED.to_string(),
            false => health(status),
        };
        println!("{name}: {} - {health}", summary(config));
    }
    Ok(ExitCode::SUCCESS)
}

fn get(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, McpCmdError> {
    let [name] = args else {
        return Err(McpCmdError::MissingOperands {
            command: "get",
            needs: "exactly one server name",
        });
    };
    let found = config_store::find(name, home, cwd)?;
    let Some((scope, config)) = found.first().cloned() else {
        return Err(McpCmdError::NotConfigured(name.clone()));
    };
    let one: BTreeMap<String, (ServerConfig, Scope)> =
        [(name.clone(), (config.clone(), scope))].into();
    let (statuses, held) = check(&one, cwd)?;
    println!("{name}:");
    println!("  Scope: {}", scope.describe());
    match held.contains(name) {
        true => println!("  Status: {NOT_APPROVED}"),
        false => println!("  Status: {}", health(statuses.first())),
    }
    println!("  Type: {}", config.kind());
    match &config {
        ServerConfig::Stdio {
            command,
            args,
            env,
            cwd: dir,
        } => {
            println!("  Command: {command}");
            println!("  Args: {}", args.join(" "));
            if let Some(dir) = dir {
                println!("  Working directory: {}", dir.display());
            }
            if !env.is_empty() {
                println!("  Environment:");
                for k in env.keys() {
                    println!("    {k}=[redacted]");
                }
            }
        }
        ServerConfig::Http { url, headers } | ServerConfig::Sse { url, headers } => {
            println!("  URL: {url}");
            if !headers.is_empty() {
                println!("  Headers:");
                for k in headers.keys() {
                    println!("    {k}: [redacted]");
                }
            }
        }
        ServerConfig::Sdk { name } => println!("  SDK server: {name}"),
    }
    if found.len() > 1 {
        let shadowed: Vec<&str> = found[1..].iter().map(|(s, _)| s.as_str()).collect();
        println!("  Also defined in (overridden): {}", shadowed.join(", "));
    }
    println!("  Config file: {}", scope.path(home, cwd).display());
    println!("\nTo remove this server, run: dcl mcp remove {name} -s {scope}");
    Ok(ExitCode::SUCCESS)
}

fn remove(
    scope: Option<Scope>,
    positionals: &[String],
    home: &Path,
    cwd: &Path,
) -> Result<ExitCode, McpCmdError> {
    let [name] = positionals else {
        return Err(McpCmdError::MissingOperands {
            command: "remove",
            needs: "exactly one server name",
        });
    };
    let scope = config_store::remove_server(scope, home, cwd, name)?;
    println!("Removed MCP server {name} from {scope} config");
    println!("File modified: {}", scope.path(home, cwd).display());
    Ok(ExitCode::SUCCESS)
}

/// What `list` and `get` say of a project server they did not start.
const NOT_APPROVED: &str = "⚠ not approved, not started (a project .mcp.json server: \
    enabledMcpjsonServers or enableAllProjectMcpServers in the settings approves it)";

/// The project's `.mcp.json` servers the settings do not approve: not started here either
/// (a health check runs the command), as a session would not start them.
fn not_approved(servers: &BTreeMap<String, (ServerConfig, Scope)>, cwd: &Path) -> BTreeSet<String> {
    use dcl_bridge::options::{McpjsonDecision, Settings};
    let home = dcl_store::home::user_home(|k| std::env::var(k).ok());
    let approval = match Settings::load(home.as_deref(), cwd, None, None) {
        Ok(settings) => settings.mcpjson_approval(),
        Err(e) => {
            eprintln!("warning: {e}; no project MCP server is approved");
            Default::default()
        }
    };
    servers
        .iter()
        .filter(|(name, (_, scope))| {
            *scope == Scope::Project && approval.decide(name) != McpjsonDecision::Approved
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Connects to every server once (concurrently, `MCP_TIMEOUT` bounded) and disconnects;
/// a project server the settings do not approve is not started (named in the set).
fn check(
    servers: &BTreeMap<String, (ServerConfig, Scope)>,
    cwd: &Path,
) -> Result<(Vec<ServerStatus>, BTreeSet<String>), McpCmdError> {
    let held = not_approved(servers, cwd);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(McpCmdError::Runtime)?;
    let options = McpOptions {
        // A non-UTF-8 variable cannot be carried in the string map: left out, not a panic.
        child_env: std::sync::Arc::new(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        ),
        cwd: Some(cwd.to_path_buf()),
        ..McpOptions::default()
    };
    let scoped = servers
        .iter()
        .filter(|(n, _)| !held.contains(*n))
        .map(|(n, (c, s))| (n.clone(), (c.clone(), s.as_str().to_string())))
        .collect();
    let statuses = runtime.block_on(async move {
        let manager = McpManager::with_options(Arc::new(NoHost), options);
        manager.start_scoped(scoped).await;
        let status = manager.status();
        manager.shutdown().await;
        status
    });
    Ok((statuses, held))
}

fn summary(config: &ServerConfig) -> String {
    match config {
        ServerConfig::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        ServerConfig::Http { url, .. } => format!("{url} (HTTP)"),
        ServerConfig::Sse { url, .. } => format!("{url} (SSE)"),
        ServerConfig::Sdk { name } => format!("SDK server {name}"),
    }
}

fn health(status: Option<&ServerStatus>) -> String {
    match status {
        Some(s) if s.status == ConnectionStatus::Connected => {
            format!("✓ Connected ({} tools)", s.tools.len())
        }
        Some(s) if s.status == ConnectionStatus::Disabled => "disabled".into(),
        Some(s) => match &s.error {
            Some(e) => format!("✗ Failed to connect: {e}"),
            None => "✗ Failed to connect".into(),
        },
        None => "✗ not checked".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn parse(a: &[&str]) -> Result<McpCli, clap::Error> {
        McpCli::try_parse_from(v(a))
    }

    #[test]
    fn option_forms() {
        let Some(McpCommand::Remove(r)) = parse(&["remove", "--scope=user", "x"]).unwrap().command
        else {
            panic!("not remove")
        };
        assert_eq!(r.scope, Some(Scope::User));
        let Some(McpCommand::Remove(r)) = parse(&["rm", "-s", "project", "x"]).unwrap().command
        else {
            panic!("not remove")
        };
        assert_eq!(r.scope, Some(Scope::Project));
        assert_eq!(r.names, v(&["x"]));
        // A value is required.
        assert!(parse(&["remove", "x", "--scope"]).is_err());
    }

    #[test]
    fn the_servers_own_arguments_are_taken_as_they_are() {
        for argv in [
            &[
                "add", "-e", "A=1", "srv", "cmd", "-y", "--port", "3", "-e", "B",
            ][..],
            &[
                "add", "-e", "A=1", "srv", "--", "cmd", "-y", "--port", "3", "-e", "B",
            ][..],
        ] {
            let Some(McpCommand::Add(a)) = parse(argv).unwrap().command else {
                panic!("not add")
            };
            assert_eq!(a.env, vec![("A".to_string(), "1".to_string())]);
            assert_eq!(
                a.words(),
                v(&["srv", "cmd", "-y", "--port", "3", "-e", "B"]),
                "{argv:?}"
            );
        }
    }

    #[test]
    fn names() {
        assert!(check_name("my-server_2").is_ok());
        assert!(check_name("bad name").is_err());
        assert!(check_name("").is_err());
    }
}
