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
//! pairing, rematch), [`request`] (what a request carries: token, seat, body),
//! [`newgame`] (making a game: for a create request, a pairing, a rematch), [`players`] (players and ratings), [`history`] (a player's
//! finished games), [`page`] (the embedded page),
//! [`app`] (games in memory), [`flow`] (committing a change, scheduling server seats
//! and time-outs, following other processes), [`table`] (a game with its seats),
//! [`timer`] (the clocks' rules), [`state`] (what a seat receives), [`seat`]
//! (tokens), [`store`] (SQLite and PostgreSQL, over TLS when asked), [`migrate`] (a junqi-web 0.1.0
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
pub mod history;
pub mod limits;
pub mod lobby;
pub mod migrate;
pub mod newgame;
pub mod page;
pub mod players;
pub mod request;
pub mod seat;
pub mod state;
pub mod store;
pub mod table;
pub mod timer;

use std::ffi::OsString;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
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
    /// The database: an SQLite file's path, or a `postgres://…` URL. By default
    /// [`default_db`], the user's data folder (empty when there is none: [`start`]
    /// then refuses to guess).
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
            db: default_db()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            bot_delay: Duration::from_millis(500),
            limits: Default::default(),
        }
    }
}

/// The default database: `junqi-web/junqi-web.sqlite` in the user's data folder,
/// `$XDG_DATA_HOME`, or `$HOME/.local/share` when `XDG_DATA_HOME` is unset, empty or
/// not an absolute path (the XDG base directory specification); never the current
/// directory. `None` when neither variable names an absolute folder. Only reads the
/// environment: [`start`] creates the folder when it opens this file.
pub fn default_db() -> Option<PathBuf> {
    default_db_in(
        std::env::var_os("XDG_DATA_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`default_db`] for these values of `XDG_DATA_HOME` and `HOME`.
fn default_db_in(xdg_data_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let data = absolute(xdg_data_home)
        .or_else(|| absolute(home).map(|h| h.join(".local").join("share")))?;
    Some(data.join("junqi-web").join("junqi-web.sqlite"))
}

/// Creates the folder of the default database (and the data folder above it, if
/// missing), readable by its owner only: the file holds seat tokens and players'
/// secrets.
fn create_data_folder(db: &Path) -> Result<(), String> {
    let Some(folder) = db.parent() else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(folder)
        .map_err(|e| format!("data folder {}: {e}", folder.display()))
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
    if config.db.is_empty() {
        return Err("no database: neither XDG_DATA_HOME nor HOME names an absolute folder \
                    for the default one; give --db FILE or --db postgres://…"
            .into());
    }
    if default_db().is_some_and(|d| Path::new(&config.db) == d) {
        create_data_folder(Path::new(&config.db))?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_default_database_is_in_the_data_folder() {
        let os = |s: &str| Some(OsString::from(s));
        let db = |x, h| default_db_in(x, h).map(|p| p.display().to_string());
        assert_eq!(
            db(os("/data"), os("/home/u")).as_deref(),
            Some("/data/junqi-web/junqi-web.sqlite")
        );
        // Unset, empty or relative: `$HOME/.local/share`.
        for xdg in [None, os(""), os("rel/data")] {
            assert_eq!(
                db(xdg, os("/home/u")).as_deref(),
                Some("/home/u/.local/share/junqi-web/junqi-web.sqlite")
            );
        }
        // Never the current directory.
        assert_eq!(db(None, None), None);
        assert_eq!(db(os("data"), os("home")), None);
    }
}
