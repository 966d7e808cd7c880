//! `dcl mcp add|add-json|list|get|remove`: manage the MCP servers of the three config scopes
//! (see `dcl_mcp::config_store`). The file logic lives in dcl-mcp; this is argument handling
//! and output for people.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use dcl_mcp::config_store::{self, Scope};
use dcl_mcp::{ConnectionStatus, McpManager, McpOptions, NoHost, ServerConfig, ServerStatus};
use serde_json::{Map, Value, json};

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

/// Runs `dcl … mcp <subcommand> …`; `argv` is the whole command line after the program name.
pub fn run(argv: Vec<String>) -> Result<ExitCode, String> {
    let rest: Vec<String> = match argv.iter().position(|a| a == "mcp") {
        Some(i) => argv[i + 1..].to_vec(),
        None => Vec::new(),
    };
    let Some((sub, args)) = rest.split_first() else {
        print!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    let home = home_dir()?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    match sub.as_str() {
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        "add" => add(args, &home, &cwd),
        "add-json" => add_json(args, &home, &cwd),
        "list" => list(args, &home, &cwd),
        "get" => get(args, &home, &cwd),
        "remove" | "rm" => remove(args, &home, &cwd),
        other => Err(format!("unknown `dcl mcp` command {other:?}\n\n{USAGE}")),
    }
}

fn home_dir() -> Result<PathBuf, String> {
    match std::env::var_os("HOME") {
        Some(h) if !h.is_empty() => Ok(PathBuf::from(h)),
        _ => Err("HOME is not set: cannot find the user MCP config (~/.dcl/mcp.json)".into()),
    }
}

/// `--flag value`, `--flag=value`, `-f value`: the value of `arg` if it is one of `names`.
fn option_value(args: &[String], i: &mut usize, names: &[&str]) -> Result<Option<String>, String> {
    let arg = &args[*i];
    for name in names {
        if arg == name {
            *i += 1;
            return match args.get(*i) {
                Some(v) => Ok(Some(v.clone())),
                None => Err(format!("{name} needs a value")),
            };
        }
        if name.starts_with("--")
            && let Some(v) = arg.strip_prefix(&format!("{name}="))
        {
            return Ok(Some(v.to_string()));
        }
    }
    Ok(None)
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid server name {name:?}: use only letters, digits, '-' and '_'"
        ))
    }
}

fn add(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, String> {
    let mut scope = Scope::Local;
    let mut transport = "stdio".to_string();
    let mut env = Map::new();
    let mut headers = Map::new();
    let mut positionals: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        // Once the name and the command are known, everything else is the server's argv.
        if positionals.len() >= 2 {
            positionals.extend(args[i..].iter().cloned());
            break;
        }
        let arg = &args[i];
        if arg == "--" {
            positionals.extend(args[i + 1..].iter().cloned());
            break;
        }
        if let Some(v) = option_value(args, &mut i, &["-s", "--scope"])? {
            scope = v.parse()?;
        } else if let Some(v) = option_value(args, &mut i, &["-t", "--transport"])? {
            transport = match v.as_str() {
                "stdio" | "http" | "sse" => v,
                other => {
                    return Err(format!(
                        "invalid transport {other:?}: expected stdio, http or sse"
                    ));
                }
            };
        } else if let Some(v) = option_value(args, &mut i, &["-e", "--env"])? {
            let (k, val) = v
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| format!("invalid --env {v:?}: expected KEY=VALUE"))?;
            env.insert(k.trim().to_string(), json!(val));
        } else if let Some(v) = option_value(args, &mut i, &["-H", "--header"])? {
            let (k, val) = v
                .split_once(':')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| format!("invalid --header {v:?}: expected \"Name: value\""))?;
            headers.insert(k.trim().to_string(), json!(val.trim()));
        } else if arg.starts_with('-') && arg.len() > 1 {
            return Err(format!(
                "unknown option {arg:?} for `dcl mcp add`\n\n{USAGE}"
            ));
        } else {
            positionals.push(arg.clone());
        }
        i += 1;
    }
    let mut positionals = positionals.into_iter();
    let (Some(name), Some(target)) = (positionals.next(), positionals.next()) else {
        return Err(format!(
            "`dcl mcp add` needs a name and a command or URL\n\n{USAGE}"
        ));
    };
    let server_args: Vec<String> = positionals.collect();
    check_name(&name)?;
    let server = if transport == "stdio" {
        if !headers.is_empty() {
            return Err("--header applies to http and sse servers only".into());
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
            return Err("--env applies to stdio servers only".into());
        }
        if !server_args.is_empty() {
            return Err(format!(
                "an {transport} server takes one URL; unexpected arguments: {}",
                server_args.join(" ")
            ));
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

fn add_json(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, String> {
    let mut scope = Scope::Local;
    let mut positionals = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if let Some(v) = option_value(args, &mut i, &["-s", "--scope"])? {
            scope = v.parse()?;
        } else if args[i].starts_with('-') && args[i].len() > 1 && positionals.is_empty() {
            return Err(format!(
                "unknown option {:?} for `dcl mcp add-json`",
                args[i]
            ));
        } else {
            positionals.push(args[i].clone());
        }
        i += 1;
    }
    let [name, text] = positionals.as_slice() else {
        return Err(format!(
            "`dcl mcp add-json` needs a name and the server's JSON\n\n{USAGE}"
        ));
    };
    check_name(name)?;
    let server: Value =
        serde_json::from_str(text).map_err(|e| format!("invalid JSON for {name:?}: {e}"))?;
    let config = ServerConfig::from_json(name, &server).map_err(|e| format!("{name:?}: {e}"))?;
    let path = config_store::add_server(scope, home, cwd, name, &server)?;
    println!(
        "Added {} MCP server {name} to {scope} config",
        config.kind()
    );
    println!("File modified: {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn list(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, String> {
    if let Some(extra) = args.first() {
        return Err(format!("`dcl mcp list` takes no arguments (got {extra:?})"));
    }
    let all = config_store::load_all(home, cwd)?;
    if all.is_empty() {
        println!("No MCP servers configured. Use `dcl mcp add` to add a server.");
        return Ok(ExitCode::SUCCESS);
    }
    println!("Checking MCP server health...\n");
    let statuses = check(&all, cwd)?;
    for (name, (config, _scope)) in &all {
        let status = statuses.iter().find(|s| &s.name == name);
        println!("{name}: {} - {}", summary(config), health(status));
    }
    Ok(ExitCode::SUCCESS)
}

fn get(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, String> {
    let [name] = args else {
        return Err(format!(
            "`dcl mcp get` needs exactly one server name\n\n{USAGE}"
        ));
    };
    let found = config_store::find(name, home, cwd)?;
    let Some((scope, config)) = found.first().cloned() else {
        return Err(format!("No MCP server named {name:?} is configured"));
    };
    let one: BTreeMap<String, (ServerConfig, Scope)> =
        [(name.clone(), (config.clone(), scope))].into();
    let statuses = check(&one, cwd)?;
    println!("{name}:");
    println!("  Scope: {}", scope.describe());
    println!("  Status: {}", health(statuses.first()));
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

fn remove(args: &[String], home: &Path, cwd: &Path) -> Result<ExitCode, String> {
    let mut scope = None;
    let mut positionals = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if let Some(v) = option_value(args, &mut i, &["-s", "--scope"])? {
            scope = Some(v.parse::<Scope>()?);
        } else if args[i].starts_with('-') && args[i].len() > 1 {
            return Err(format!("unknown option {:?} for `dcl mcp remove`", args[i]));
        } else {
            positionals.push(args[i].clone());
        }
        i += 1;
    }
    let [name] = positionals.as_slice() else {
        return Err(format!(
            "`dcl mcp remove` needs exactly one server name\n\n{USAGE}"
        ));
    };
    let scope = config_store::remove_server(scope, home, cwd, name)?;
    println!("Removed MCP server {name} from {scope} config");
    println!("File modified: {}", scope.path(home, cwd).display());
    Ok(ExitCode::SUCCESS)
}

/// Connects to every server once (concurrently, `MCP_TIMEOUT` bounded) and disconnects.
fn check(
    servers: &BTreeMap<String, (ServerConfig, Scope)>,
    cwd: &Path,
) -> Result<Vec<ServerStatus>, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let options = McpOptions {
        child_env: std::env::vars().collect(),
        cwd: Some(cwd.to_path_buf()),
        ..McpOptions::default()
    };
    let scoped = servers
        .iter()
        .map(|(n, (c, s))| (n.clone(), (c.clone(), s.as_str().to_string())))
        .collect();
    Ok(runtime.block_on(async move {
        let manager = McpManager::with_options(Arc::new(NoHost), options);
        manager.start_scoped(scoped).await;
        let status = manager.status();
        manager.shutdown().await;
        status
    }))
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

    #[test]
    fn option_forms() {
        let args = v(&["--scope=user", "-s", "project", "--scope"]);
        let mut i = 0;
        assert_eq!(
            option_value(&args, &mut i, &["-s", "--scope"]).unwrap(),
            Some("user".into())
        );
        i = 1;
        assert_eq!(
            option_value(&args, &mut i, &["-s", "--scope"]).unwrap(),
            Some("project".into())
        );
        assert_eq!(i, 2);
        i = 3;
        assert!(option_value(&args, &mut i, &["-s", "--scope"]).is_err());
    }

    #[test]
    fn names() {
        assert!(check_name("my-server_2").is_ok());
        assert!(check_name("bad name").is_err());
        assert!(check_name("").is_err());
    }
}
