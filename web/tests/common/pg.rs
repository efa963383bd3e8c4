//! A PostgreSQL server of the test's own: Debian's `postgresql` binaries (under
//! /usr/lib/postgresql/VERSION/bin), `initdb` into a temporary folder, `pg_ctl start`
//! on a free loopback port (no Unix socket outside the folder), stopped and removed
//! when dropped. PostgreSQL refuses to run as root, so as root the cluster belongs to
//! `nobody` and its commands run through `runuser`. tests/postgres/run.sh installs
//! the package when it is missing; the load test (web/examples/load.rs) uses this too.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// A running PostgreSQL server.
pub struct Pg {
    bin: PathBuf,
    dir: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
    user: Option<&'static str>,
}

/// The folder of the newest PostgreSQL's programs, if PostgreSQL is installed.
pub fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let v = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, b)| b)
}

fn is_root() -> bool {
    // No libc call needed: root's own files say it.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Pg {
    /// Starts a fresh server. `durable` keeps PostgreSQL's own defaults (every commit
    /// flushed to disk); otherwise `fsync` is off, as a test that kills junqi-web (not
    /// PostgreSQL) does not need the disk flushed and runs faster.
    pub fn start(durable: bool) -> Pg {
        Pg::start_with(durable, None)
    }

    /// Starts a fresh server that takes TCP connections over TLS only (`hostssl` in
    /// pg_hba.conf: a plain connection is refused), with this certificate and key.
    pub fn start_tls(cert: &Path, key: &Path) -> Pg {
        Pg::start_with(false, Some((cert, key)))
    }

    fn start_with(durable: bool, tls: Option<(&Path, &Path)>) -> Pg {
        let bin = bin_dir().expect(
            "PostgreSQL is not installed (/usr/lib/postgresql/*/bin): apt-get install postgresql, \
             or run tests/postgres/run.sh, which does",
        );
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "junqi-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let user = is_root().then_some("nobody");
        if user.is_some() {
            let ok = Command::new("chown")
                .args(["nobody", dir.to_str().expect("a UTF-8 path")])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown nobody {dir:?}");
        }
        let pg = Pg { bin, dir, port: free_port(), user };
        let data = pg.dir.join("data");
        pg.run(
            "initdb",
            &["-D", data.to_str().unwrap(), "-A", "trust", "-U", "junqi", "-E", "UTF8", "--no-sync"],
        );
        let mut opts = format!(
            "-k {} -p {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            pg.dir.display(),
            pg.port
        );
        if !durable {
            opts.push_str(" -c fsync=off -c full_page_writes=off");
        }
        if let Some((cert, key)) = tls {
            // The server's own copies, owned by its user, the key readable by it alone
            // (PostgreSQL refuses a key others can read).
            let (c, k) = (pg.dir.join("server.crt"), pg.dir.join("server.key"));
            std::fs::copy(cert, &c).expect("the certificate copied");
            std::fs::copy(key, &k).expect("the key copied");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&k, std::fs::Permissions::from_mode(0o600)).expect("chmod 600");
            if let Some(u) = pg.user {
                for f in [&c, &k] {
                    let ok = Command::new("chown").arg(u).arg(f).status().is_ok_and(|s| s.success());
                    assert!(ok, "chown {u} {f:?}");
                }
            }
            std::fs::write(
                data.join("pg_hba.conf"),
                "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n",
            )
            .expect("pg_hba.conf");
            opts.push_str(&format!(" -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}", c.display(), k.display()));
        }
        let log = pg.dir.join("log");
        pg.run(
            "pg_ctl",
            &["-D", data.to_str().unwrap(), "-o", &opts, "-l", log.to_str().unwrap(), "-w", "-t", "30", "start"],
        );
        pg
    }

    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match self.user {
            Some(u) => {
                let mut c = Command::new("runuser");
                c.args(["-u", u, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self
            .command(program)
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Makes a database and answers its URL.
    pub fn database(&self, name: &str) -> String {
        self.run("createdb", &["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "junqi", name]);
        self.url(name)
    }

    /// The URL of a database of this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://junqi@127.0.0.1:{}/{name}", self.port)
    }

    /// The server's folder (its data and log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let _ = self
            .command("pg_ctl")
            .args(["-D", data.to_str().unwrap_or(""), "-m", "immediate", "-w", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
