//! `junqi-web [--bind 127.0.0.1] [--port 8080] [--db junqi-web.sqlite] [--bot-delay-ms 500]`:
//! serves the web referee. The first line on stdout is `listening on http://ADDR:PORT`.

use std::io::Write;
use std::time::Duration;

const USAGE: &str = "usage: junqi-web [--bind ADDR] [--port PORT] [--db FILE] [--bot-delay-ms MS]
  --bind          address to listen on (default 127.0.0.1: loopback only)
  --port          port, 0 for any free port (default 8080)
  --db            SQLite database file; created if missing (default junqi-web.sqlite)
  --bot-delay-ms  how long a random seat waits before it acts (default 500)";

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
            "--db" => config.db = value.clone().into(),
            "--bot-delay-ms" => {
                config.bot_delay = Duration::from_millis(
                    value
                        .parse()
                        .unwrap_or_else(|_| bad("a number of milliseconds")),
                )
            }
            _ => fail(&format!("unknown option {flag}")),
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
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
        let _ = std::io::stdout().flush();
        let _ = tokio::signal::ctrl_c().await;
        server.stop();
    });
}

fn fail(message: &str) -> ! {
    eprintln!("junqi-web: {message}\n{USAGE}");
    std::process::exit(2);
}
