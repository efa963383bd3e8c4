//! # junqi-web — a web referee for the 军棋 family
//!
//! The server holds every game (the core's [`junqi::Game`], the referee) and sends
//! each seat only what that seat may know: its own view, its own events, its own legal
//! actions. Seats are joined by links holding unguessable tokens; random seats are
//! played by the server; games persist in SQLite and resume after a restart; a
//! per-move clock applies the referee's time-outs. The API is described in
//! `docs/web.md`.
//!
//! Modules: [`api`] (handlers), [`page`] (the embedded page), [`app`] (games in memory),
//! [`flow`] (committing a change, scheduling server seats and time-outs), [`table`] (a
//! game with its seats), [`state`] (what a seat receives), [`seat`] (tokens),
//! [`store`] (SQLite), [`clock`] (the injected time), [`bot`] (what random and bot
//! seats play), [`error`] (errors on the wire), [`conn`] (accepting connections) and
//! [`limits`] (timeouts and caps on connections and streams).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod api;
pub mod app;
pub mod bot;
pub mod clock;
pub mod conn;
pub mod error;
pub mod flow;
pub mod limits;
pub mod page;
pub mod seat;
pub mod state;
pub mod store;
pub mod table;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use app::App;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to bind (loopback by default).
    pub bind: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// The SQLite database file.
    pub db: PathBuf,
    /// How long a random seat waits before it acts.
    pub bot_delay: Duration,
    /// Timeouts and caps on connections and event streams.
    pub limits: limits::Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 8080,
            db: PathBuf::from("junqi-web.sqlite"),
            bot_delay: Duration::from_millis(500),
            limits: Default::default(),
        }
    }
}

/// A running server.
pub struct Server {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its state.
    pub app: Arc<App>,
    connections: Arc<limits::Tally>,
    closing: tokio::sync::watch::Sender<bool>,
}

impl Server {
    /// Stops the server: it stops listening, closes every connection (event streams
    /// too), and no scheduled work (random seats, clocks) acts any more. What was
    /// committed stays in the database.
    pub fn stop(&self) {
        self.app.closed.store(true, Ordering::SeqCst);
        self.closing.send_replace(true);
    }

    /// How many connections are open.
    pub fn open_connections(&self) -> usize {
        self.connections.total()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Opens the database, resumes every stored game, binds and serves (in a task of the
/// current tokio runtime).
pub async fn start(config: Config) -> Result<Server, String> {
    config.limits.check()?;
    let store = store::Store::open(&config.db)
        .map_err(|e| format!("database {}: {e}", config.db.display()))?;
    let app = Arc::new(App {
        games: RwLock::new(Default::default()),
        store,
        bot_delay: config.bot_delay,
        closed: Default::default(),
        limits: config.limits.clone(),
        streams: Default::default(),
        broken: Default::default(),
        clock: Arc::new(clock::SystemClock),
    });
    flow::resume_all(&app)?;
    let listener = tokio::net::TcpListener::bind((config.bind, config.port))
        .await
        .map_err(|e| format!("bind {}:{}: {e}", config.bind, config.port))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let router = api::router(app.clone());
    let connections = Arc::new(limits::Tally::default());
    let (closing, closed) = tokio::sync::watch::channel(false);
    tokio::spawn(conn::serve(
        listener,
        router,
        config.limits,
        connections.clone(),
        closed,
    ));
    Ok(Server {
        addr,
        app,
        connections,
        closing,
    })
}
