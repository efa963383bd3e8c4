//! A tiny HTTP/1.1 client over a tokio `TcpStream`, for the API tests and the load
//! test. reqwest would pull in a TLS stack and dozens of crates for what is, on
//! loopback, a request line, three headers and a `Content-Length` body; this keeps
//! connections alive (the load test makes hundreds of thousands of requests) and
//! reads chunked bodies too.
#![allow(dead_code)]

use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A kept-alive connection to the server.
pub struct Client {
    addr: SocketAddr,
    conn: Option<BufReader<TcpStream>>,
}

/// A response: status and body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: String,
}

impl Reply {
    /// The body as JSON (panics if it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The error code of an error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }
}

impl Client {
    pub fn new(addr: SocketAddr) -> Client {
        Client { addr, conn: None }
    }

    /// Sends one request and reads the response (reconnecting if the server closed
    /// the connection).
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> Reply {
        for attempt in 0..2 {
            if self.conn.is_none() {
                let stream = TcpStream::connect(self.addr).await.expect("connect");
                stream.set_nodelay(true).ok();
                self.conn = Some(BufReader::new(stream));
            }
            match self.try_request(method, path, token, body).await {
                Ok(r) => return r,
                Err(e) => {
                    self.conn = None;
                    if attempt == 1 {
                        panic!("{method} {path}: {e}");
                    }
                }
            }
        }
        unreachable!()
    }

    async fn try_request(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> std::io::Result<Reply> {
        let conn = self.conn.as_mut().expect("connected");
        let body = body.unwrap_or("");
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        if let Some(t) = token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(body);
        conn.get_mut().write_all(head.as_bytes()).await?;
        let (status, headers) = read_head(conn).await?;
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let bytes = if let Some(n) = header("content-length") {
            let n: usize = n.parse().map_err(|_| bad("content-length"))?;
            let mut buf = vec![0; n];
            conn.read_exact(&mut buf).await?;
            buf
        } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            let mut out = Vec::new();
            loop {
                let mut line = String::new();
                conn.read_line(&mut line).await?;
                let n = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("chunk size"))?;
                let mut buf = vec![0; n + 2];
                conn.read_exact(&mut buf).await?;
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            out
        } else {
            Vec::new()
        };
        if header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close")) {
            self.conn = None;
        }
        Ok(Reply {
            status,
            body: String::from_utf8(bytes).map_err(|_| bad("utf-8"))?,
        })
    }

    pub async fn get(&mut self, path: &str, token: Option<&str>) -> Reply {
        self.request("GET", path, token, None).await
    }

    pub async fn post(&mut self, path: &str, token: Option<&str>, body: &str) -> Reply {
        self.request("POST", path, token, Some(body)).await
    }
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad {what}"))
}

/// Reads a status line and headers.
pub async fn read_head<R: AsyncBufReadExt + Unpin>(
    conn: &mut R,
) -> std::io::Result<(u16, Vec<(String, String)>)> {
    let mut line = String::new();
    if conn.read_line(&mut line).await? == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "closed",
        ));
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("status line"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        conn.read_line(&mut line).await?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    Ok((status, headers))
}

/// Sends `request` as raw bytes on a fresh connection and reads one response (for
/// requests the [`Client`] would not send: odd headers, bytes that are not UTF-8).
/// Panics when no answer comes within 10 s.
pub async fn raw(addr: SocketAddr, request: &[u8]) -> Reply {
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        raw_unbounded(addr, request),
    )
    .await
    .expect("an answer within 10 s")
}

async fn raw_unbounded(addr: SocketAddr, request: &[u8]) -> Reply {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let mut conn = BufReader::new(stream);
    conn.get_mut().write_all(request).await.expect("write");
    let (status, headers) = read_head(&mut conn).await.expect("a response head");
    let n: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut buf = vec![0; n];
    conn.read_exact(&mut buf).await.expect("the body");
    Reply {
        status,
        body: String::from_utf8_lossy(&buf).into_owned(),
    }
}
