//! Connections: the accept loop, with the [`Limits`] on each connection. hyper's
//! HTTP/1 server with a timer closes a connection that does not send a complete request
//! header in time (a half-sent request, or a kept-alive connection left idle); a tally
//! caps the open connections in total and per client address, answering one too many
//! with an error and closing it; a middleware reads each body against a deadline and a
//! size limit; and a connection's last allowed request is answered with
//! `Connection: close`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use futures_util::StreamExt;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

use crate::app::App;
use crate::error::ApiError;
use crate::limits::{Full, Held, Limits, Tally};

/// The largest request header (request line included); hyper answers a larger one
/// `431 Request Header Fields Too Large` and closes the connection. A browser's header
/// is a few hundred bytes to a few kilobytes.
const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The largest read buffer of a connection (hyper's default is about 400 kB), which
/// bounds what one connection holds while a request arrives.
const MAX_BUFFER_BYTES: usize = 64 * 1024;

/// How many refused connections may be answered at once; past that a refused
/// connection is closed without an answer (a flood is not worth a task each).
const REFUSALS_AT_ONCE: usize = 256;

/// How long answering a refused connection may take.
const REFUSAL_TIME: Duration = Duration::from_millis(500);

/// Accepts connections until `closing` turns true (or its sender is dropped), then
/// closes every connection it serves.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    connections: Arc<Tally>,
    closing: watch::Receiver<bool>,
) {
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let mut stop = closing.clone();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.wait_for(|c| *c) => return,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            // Out of file descriptors, or a connection reset before it was accepted:
            // wait a moment rather than spin, then go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        match connections.take(
            peer.ip(),
            limits.max_connections,
            limits.max_connections_per_address,
        ) {
            Ok(held) => {
                tokio::spawn(serve_one(
                    stream,
                    peer,
                    held,
                    router.clone(),
                    limits.clone(),
                    closing.clone(),
                ));
            }
            Err(full) => refuse(stream, full, &limits, &refusals),
        }
    }
}

/// Serves one connection with hyper's HTTP/1 server, until it closes, times out or
/// the server stops.
async fn serve_one(
    stream: TcpStream,
    peer: SocketAddr,
    held: Held,
    router: Router,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
) {
    let _held = held;
    let _ = stream.set_nodelay(true);
    let router = TowerToHyperService::new(router);
    let served = AtomicUsize::new(0);
    let last = limits.max_requests_per_connection;
    let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        let n = served.fetch_add(1, Ordering::Relaxed) + 1;
        let answer = router.call(req);
        async move {
            let mut response: Response = answer.await?;
            if n >= last {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_header_size(MAX_HEADER_BYTES)
        .max_buf_size(MAX_BUFFER_BYTES);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = connection => {}
        _ = closing.wait_for(|c| *c) => {}
    }
}

/// Answers a connection over a cap with an error and closes it, within
/// [`REFUSAL_TIME`]; with too many refusals in flight, just closes it.
fn refuse(mut stream: TcpStream, full: Full, limits: &Limits, refusals: &Arc<Semaphore>) {
    let Ok(permit) = refusals.clone().try_acquire_owned() else {
        return;
    };
    let error = match full {
        Full::Total => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_connections",
            format!(
                "the server has its maximum of {} connections open; try again later",
                limits.max_connections
            ),
        ),
        Full::Address => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_connections",
            format!(
                "your address has its maximum of {} connections open; close one first",
                limits.max_connections_per_address
            ),
        ),
    };
    let body =
        serde_json::json!({"error": {"code": error.code, "message": error.message}}).to_string();
    let head = format!(
        "HTTP/1.1 {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        error.status,
        body.len()
    );
    tokio::spawn(async move {
        let _permit = permit;
        let _ = tokio::time::timeout(REFUSAL_TIME, async {
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.shutdown().await?;
            // Read what the client sent until it closes, so that closing does not
            // reset the connection before the client reads the answer.
            let mut sink = [0u8; 4096];
            while stream.read(&mut sink).await? > 0 {}
            Ok::<_, std::io::Error>(())
        })
        .await;
    });
}

/// Reads a request's body before the handler runs: within `body_timeout` of the
/// header (else `408 request_timeout`) and at most `max_body_bytes` (else
/// `413 too_large`). Both refusals close the connection (the rest of the body is
/// never read).
pub async fn read_body(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let limits = &app.limits;
    let (parts, body) = request.into_parts();
    let too_large = || {
        ApiError::too_large(format!(
            "a request body is at most {} bytes",
            limits.max_body_bytes
        ))
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.max_body_bytes as u64) {
        return closing(too_large());
    }
    let read = async {
        let mut bytes = Vec::new();
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::bad_json(format!("the request body could not be read: {e}"))
            })?;
            if bytes.len() + chunk.len() > limits.max_body_bytes {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    };
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => return closing(e),
        Err(_) => {
            return closing(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                format!(
                    "the request body did not arrive within {} ms",
                    limits.body_timeout.as_millis()
                ),
            ))
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// An error answer that closes the connection.
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
