//! The sandbox's way out: an HTTP proxy that lets a sandboxed command reach only the
//! hosts of `sandbox.network.allowedDomains` (as the reference CLI's sandbox does). It
//! listens on a unix socket in the sandbox's own directory, not on the host network: a
//! sandboxed command runs in an empty network namespace whose only way out is a
//! loopback endpoint (`127.0.0.1:<port>` there) relayed to this socket (see `child`).
//! Sandboxed commands get `HTTP(S)_PROXY` pointing at that endpoint; anything that
//! ignores the proxy finds no network at all.
//!
//! `CONNECT host:port` (HTTPS, any TLS) is tunnelled; plain-HTTP requests in absolute
//! form are forwarded with `Connection: close`. Hand-written rather than a proxy crate:
//! the whole job is one allow-list check in front of a byte copy, on std threads so it
//! needs no runtime (a sandbox is built from the CLI, Python, Node or Java alike).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// The most bytes of a request head the proxy reads before refusing it.
const MAX_HEAD: usize = 16 * 1024;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Which hosts may be reached: exact names or IPs, and `*.example.com` for subdomains.
#[derive(Debug, Clone)]
pub struct AllowList(Vec<String>);

impl AllowList {
    pub fn new(domains: &[String]) -> AllowList {
        AllowList(
            domains
                .iter()
                .map(|d| d.trim().trim_end_matches('.').to_ascii_lowercase())
                .filter(|d| !d.is_empty())
                .collect(),
        )
    }

    pub fn allows(&self, host: &str) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        self.0.iter().any(|d| match d.strip_prefix("*.") {
            Some(parent) => host
                .strip_suffix(parent)
                .is_some_and(|rest| rest.len() > 1 && rest.ends_with('.')),
            None => *d == host,
        })
    }
}

/// A running proxy; stops when dropped.
#[derive(Debug)]
pub struct Proxy {
    port: u16,
    socket: PathBuf,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on the unix socket `socket`; `port` is where sandboxed commands reach it
    /// (their namespace's loopback).
    pub fn start(allow: AllowList, socket: &Path, port: u16) -> io::Result<Proxy> {
        let listener = UnixListener::bind(socket)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let allow = Arc::new(allow);
        thread::Builder::new()
            .name("dcl-sandbox-proxy".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let allow = Arc::clone(&allow);
                    let _ = thread::Builder::new()
                        .name("dcl-sandbox-proxy-conn".into())
                        .spawn(move || {
                            if let Err(e) = serve(conn, &allow) {
                                tracing::debug!("sandbox proxy: {e}");
                            }
                        });
                }
            })?;
        Ok(Proxy {
            port,
            socket: socket.to_path_buf(),
            stop,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`, for the `*_PROXY` variables.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = UnixStream::connect(&self.socket);
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A parsed request head: where it goes and what to send upstream first.
struct Head {
    connect: bool,
    host: String,
    port: u16,
    /// For plain HTTP: the head rewritten to origin form, then any body bytes read.
    forward: Vec<u8>,
}

fn serve(mut client: UnixStream, allow: &AllowList) -> io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut buf = Vec::new();
    let end = loop {
        let mut chunk = [0u8; 4096];
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return refuse(&mut client, "400 Bad Request", "request head too large");
        }
    };
    let head = match parse(&buf[..end], &buf[end..]) {
        Ok(h) => h,
        Err(why) => return refuse(&mut client, "400 Bad Request", &why.to_string()),
    };
    if !allow.allows(&head.host) {
        let why = format!(
            "Blocked by the dcl sandbox: {} is not in sandbox.network.allowedDomains",
            head.host
        );
        return refuse(&mut client, "403 Forbidden", &why);
    }
    let upstream = match connect(&head.host, head.port) {
        Ok(s) => s,
        Err(e) => {
            let why = format!("cannot reach {}:{}: {e}", head.host, head.port);
            return refuse(&mut client, "502 Bad Gateway", &why);
        }
    };
    client.set_read_timeout(None)?;
    let mut up = upstream;
    if head.connect {
        client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
        // Bytes the client sent after the head (a TLS hello, pipelined early).
        up.write_all(&buf[end..])?;
    } else {
        up.write_all(&head.forward)?;
    }
    pipe(client, up)
}

/// Why a request is answered `400 Bad Request`; the message is the response's body.
#[derive(Debug, thiserror::Error)]
enum BadRequest {
    #[error("request head is not UTF-8")]
    NotUtf8,
    #[error("not an HTTP request line: {0:?}")]
    NotRequestLine(String),
    #[error("only http:// URLs and CONNECT go through the proxy, not {0:?}")]
    NotProxied(String),
    #[error("bad host in {0:?}")]
    BadHost(String),
}

fn parse(head: &[u8], body: &[u8]) -> Result<Head, BadRequest> {
    let text = std::str::from_utf8(head).map_err(|_| BadRequest::NotUtf8)?;
    let mut lines = text.split("\r\n");
    let request = lines.next().unwrap_or_default();
    let mut parts = request.split(' ');
    let (method, target, version) = match (parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(t), Some(v)) if v.starts_with("HTTP/") => (m, t, v),
        _ => return Err(BadRequest::NotRequestLine(request.to_string())),
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target, 443)?;
        return Ok(Head {
            connect: true,
            host,
            port,
            forward: Vec::new(),
        });
    }
    let rest = target
        .strip_prefix("http://")
        .ok_or_else(|| BadRequest::NotProxied(target.to_string()))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (host, port) = split_host_port(authority, 80)?;
    let mut forward = format!("{method} {path} {version}\r\n").into_bytes();
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if [
            "connection",
            "proxy-connection",
            "proxy-authorization",
            "keep-alive",
        ]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h))
        {
            continue;
        }
        forward.extend_from_slice(line.as_bytes());
        forward.extend_from_slice(b"\r\n");
    }
    // One upstream per client connection: a later request could name another host.
    forward.extend_from_slice(b"Connection: close\r\n\r\n");
    forward.extend_from_slice(body);
    Ok(Head {
        connect: false,
        host,
        port,
        forward,
    })
}

fn split_host_port(authority: &str, default: u16) -> Result<(String, u16), BadRequest> {
    let bad = || BadRequest::BadHost(authority.to_string());
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (h, after) = rest.split_once(']').ok_or_else(bad)?;
        (h, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => p.parse().map_err(|_| bad())?,
        None => default,
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.to_string(), port))
}

fn connect(host: &str, port: u16) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for addr in (host, port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn refuse(client: &mut UnixStream, status: &str, why: &str) -> io::Result<()> {
    let body = format!("{why}\n");
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(reply.as_bytes())
}

/// Copies both ways until each side has closed.
fn pipe(client: UnixStream, upstream: TcpStream) -> io::Result<()> {
    let (mut c_read, mut u_write) = (client.try_clone()?, upstream.try_clone()?);
    let up = thread::spawn(move || {
        let _ = io::copy(&mut c_read, &mut u_write);
        let _ = u_write.shutdown(Shutdown::Write);
    });
    let (mut u_read, mut c_write) = (upstream, client);
    let _ = io::copy(&mut u_read, &mut c_write);
    let _ = c_write.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_matches_names_exactly_and_wildcards_only_below() {
        let a = AllowList::new(&[
            "Example.com".into(),
            "*.crates.io".into(),
            "127.0.0.1".into(),
        ]);
        assert!(a.allows("example.com") && a.allows("EXAMPLE.COM."));
        assert!(!a.allows("evil-example.com") && !a.allows("example.com.evil.net"));
        assert!(a.allows("static.crates.io") && a.allows("a.b.crates.io"));
        assert!(!a.allows("crates.io") && !a.allows("xcrates.io"));
        assert!(a.allows("127.0.0.1") && !a.allows("127.0.0.2"));
    }

    #[test]
    fn heads_parse_to_their_target_and_lose_hop_headers() {
        let h = parse(
            b"CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org\r\n\r\n",
            b"",
        )
        .unwrap();
        assert!(h.connect && h.host == "pypi.org" && h.port == 443);
        let h = parse(
            b"GET http://[::1]:8080/a?b HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive\r\n\r\n",
            b"body",
        )
        .unwrap();
        assert_eq!((h.host.as_str(), h.port), ("::1", 8080));
        let text = String::from_utf8(h.forward).unwrap();
        assert!(
            text.starts_with("GET /a?b HTTP/1.1\r\nHost: x\r\n"),
            "{text}"
        );
        assert!(text.ends_with("Connection: close\r\n\r\nbody"), "{text}");
        assert!(!text.to_ascii_lowercase().contains("proxy-connection"));
        assert!(parse(b"GET /relative HTTP/1.1\r\n\r\n", b"").is_err());
        assert!(parse(b"GET ftp://x/ HTTP/1.1\r\n\r\n", b"").is_err());
        assert!(parse(b"garbage\r\n\r\n", b"").is_err());
    }
}
