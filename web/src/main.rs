//! `junqi-web [--bind 127.0.0.1] [--port 8080] [--db FILE | --db postgres://…] [--bot-delay-ms 500]
//! [limits…]`: serves the web referee. The first line on stdout is
//! `listening on http://ADDR:PORT`, the second `database DB` (without a password).
//! Without `--db` the database is [`junqi_web::default_db`], in the user's data folder.
//! The limits are those of [`junqi_web::limits::Limits`].

use std::io::Write;
use std::time::Duration;

const USAGE: &str =
    "usage: junqi-web [--bind ADDR] [--port PORT] [--db FILE|URL] [--bot-delay-ms MS] [limits]
  --bind          address to listen on (default 127.0.0.1: loopback only)
  --port          port, 0 for any free port (default 8080)
  --db            SQLite database file, created if missing (default
                  $XDG_DATA_HOME/junqi-web/junqi-web.sqlite, else
                  ~/.local/share/junqi-web/junqi-web.sqlite; the folder is created),
                  or postgres://USER@HOST:PORT/DB: several processes on one database
                  serve the same games
  --bot-delay-ms  how long a random seat waits before it acts (default 500)
limits (a client past one is answered with an error, docs/web.md):
  --header-timeout-ms N               a request's header must arrive within N ms of the
                                      connection opening or of its previous answer (10000)
  --body-timeout-ms N                 a request's body must arrive within N ms (10000)
  --max-body-bytes N                  largest request body (262144)
  --max-connections N                 open connections in all (512)
  --max-connections-per-address N     open connections per client address (64)
  --max-requests-per-connection N     requests on one kept-alive connection (1000)
  --max-streams-per-game N            open event streams per game (64)
  --max-streams-per-address N         open event streams per client address (16)";

/// The options that set a limit (a number each).
const LIMITS: [&str; 8] = [
    "--header-timeout-ms",
    "--body-timeout-ms",
    "--max-body-bytes",
    "--max-connections",
    "--max-connections-per-address",
    "--max-requests-per-connection",
    "--max-streams-per-game",
    "--max-streams-per-address",
];

fn main() {
    let mut config = junqi_web::Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            return;
        }
        let Some(value) = args.next() else {
            fail(&format!("{flag} needs a value"))
        };
        let bad = |what: &str| -> ! { fail(&format!("{flag}: {value:?} is not {what}")) };
        match flag.as_str() {
            "--bind" => config.bind = value.parse().unwrap_or_else(|_| bad("an IP address")),
            "--port" => config.port = value.parse().unwrap_or_else(|_| bad("a port")),
            "--db" => config.db = value.clone(),
            "--bot-delay-ms" => {
                config.bot_delay = Duration::from_millis(
                    value
                        .parse()
                        .unwrap_or_else(|_| bad("a number of milliseconds")),
                )
            }
            _ if !LIMITS.contains(&flag.as_str()) => fail(&format!("unknown option {flag}")),
            _ => {
                let n: usize = value.parse().unwrap_or_else(|_| bad("a number"));
                let ms = Duration::from_millis(n as u64);
                let l = &mut config.limits;
                match flag.as_str() {
                    "--header-timeout-ms" => l.header_timeout = ms,
                    "--body-timeout-ms" => l.body_timeout = ms,
                    "--max-body-bytes" => l.max_body_bytes = n,
                    "--max-connections" => l.max_connections = n,
                    "--max-connections-per-address" => l.max_connections_per_address = n,
                    "--max-requests-per-connection" => l.max_requests_per_connection = n,
                    "--max-streams-per-game" => l.max_streams_per_game = n,
                    "--max-streams-per-address" => l.max_streams_per_address = n,
                    _ => unreachable!("every flag of LIMITS is set above"),
                }
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let db = junqi_web::shown(&config.db);
    runtime.block_on(async {
        let server = junqi_web::start(config).await.unwrap_or_else(|e| fail(&e));
        for (id, reason) in server
            .app
            .broken
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            eprintln!("junqi-web: game {id} not loaded (its row is kept unchanged): {reason}");
        }
        println!("listening on http://{}", server.addr);
        println!("database {db}");
        let _ = std::io::stdout().flush();
        let _ = tokio::signal::ctrl_c().await;
        server.stop();
    });
}

fn fail(message: &str) -> ! {
    eprintln!("junqi-web: {message}\n{USAGE}");
    std::process::exit(2);
}
