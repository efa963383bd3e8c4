//! # junqi-web — a web referee for the 军棋 family
//!
//! The server holds every game (the core's [`junqi::Game`], the referee) and sends
//! each seat only what that seat may know: its own view, its own events, its own legal
//! actions. Seats are joined by links holding unguessable tokens, or taken from the
//! lobby by players (a name and a secret token kept by the browser); random and bot
//! seats are played by the server; games persist in SQLite (one process) or
//! PostgreSQL (several processes serving the same games), appended to change by
//! change, and resume after a restart; clocks per move, per game and for the
//! deployment apply the referee's time-outs; finished games are rated with the
//! platform's points, levels and Elo rating. The API is described in `docs/web.md`.
//!
//! Modules: [`api`] (the game handlers), [`lobby`] (the lobby, joining, quick
//! pairing, rematch), [`players`] (players and ratings), [`page`] (the embedded page),
//! [`app`] (games in memory), [`flow`] (committing a change, scheduling server seats
//! and time-outs, following other processes), [`table`] (a game with its seats),
//! [`timer`] (the clocks' rules), [`state`] (what a seat receives), [`seat`]
//! (tokens), [`store`] (SQLite and PostgreSQL), [`migrate`] (a junqi-web 0.1.0
//! SQLite file brought to the store's schema at start), [`clock`] (the injected time),
//! [`bot`] (what random and bot seats play), [`error`] (errors on the wire), [`conn`]
//! (accepting connections) and [`limits`] (timeouts and caps on connections and
//! streams).
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
pub mod lobby;
pub mod migrate;
pub mod page;
pub mod players;
pub mod seat;
pub mod state;
pub mod store;
pub mod table;
pub mod timer;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
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
    /// The database: an SQLite file's path, or a `postgres://…` URL.
    pub db: String,
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
            db: "junqi-web.sqlite".into(),
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

/// Opens the database (migrating a junqi-web 0.1.0 file, [`migrate`]), resumes every
/// stored game in play, binds and serves (in a task of the current tokio runtime); with
/// PostgreSQL, follows the other processes' changes.
pub async fn start(config: Config) -> Result<Server, String> {
    start_with_clock(config, Arc::new(clock::SystemClock)).await
}

/// [`start`] with the server's time read from `clock` (tests run clocks on a time of
/// their own).
pub async fn start_with_clock(
    config: Config,
    clock: Arc<dyn clock::Clock>,
) -> Result<Server, String> {
    config.limits.check()?;
    let store = store::Store::open(&config.db)
        .await
        .map_err(|e| format!("database {}: {e}", shown(&config.db)))?;
    let unmigrated = migrate::run(&store)
        .await
        .map_err(|e| format!("database {}: {e}", shown(&config.db)))?;
    let app = Arc::new(App {
        games: RwLock::new(Default::default()),
        store,
        bot_delay: config.bot_delay,
        closed: Default::default(),
        limits: config.limits.clone(),
        streams: Default::default(),
        broken: RwLock::new(unmigrated.into_iter().collect()),
        clock,
    });
    flow::resume_all(&app).await?;
    flow::follow(&app);
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

/// A database as the log may show it: a URL without its password.
pub fn shown(db: &str) -> String {
    match (db.find("://"), db.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &db[scheme + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:…{}", &db[..scheme + 3], &db[at..]),
                None => db.to_owned(),
            }
        }
        _ => db.to_owned(),
    }
}
