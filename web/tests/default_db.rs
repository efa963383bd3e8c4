//! Where `junqi-web` keeps its games without `--db`: `junqi-web/junqi-web.sqlite` in
//! the user's data folder (`$XDG_DATA_HOME`, else `$HOME/.local/share`, the folder
//! created), said on start; never the directory it runs in.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A fresh folder under the system temp dir (removed on drop).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("junqi-web-default-db-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Kills the server on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `junqi-web --port 0` in `cwd` with `env` (and neither XDG_DATA_HOME nor HOME
/// unless given there); answers its first two lines of stdout.
fn start(cwd: &Path, env: &[(&str, &Path)]) -> (Running, Vec<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_junqi-web"));
    command
        .args(["--port", "0"])
        .current_dir(cwd)
        .env_remove("XDG_DATA_HOME")
        .env_remove("HOME")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = Running(command.spawn().expect("junqi-web starts"));
    let mut out = std::io::BufReader::new(child.0.stdout.take().unwrap());
    let lines = (0..2)
        .map(|_| {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            line.trim_end().to_owned()
        })
        .collect();
    (child, lines)
}

/// The files of `dir` whose names start with `junqi-web`.
fn databases_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("junqi-web"))
        .collect()
}

#[test]
fn the_default_database_is_in_the_data_folder_not_the_current_directory() {
    let cwd = TempDir::new("cwd");
    let data = TempDir::new("data");
    let home = TempDir::new("home");

    // XDG_DATA_HOME: its junqi-web folder, created.
    let (server, lines) = start(&cwd.0, &[("XDG_DATA_HOME", &data.0), ("HOME", &home.0)]);
    let db = data.0.join("junqi-web").join("junqi-web.sqlite");
    assert!(lines[0].starts_with("listening on http://"), "{lines:?}");
    assert_eq!(lines[1], format!("database {}", db.display()));
    assert!(db.is_file(), "{} was created", db.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(db.parent().unwrap()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "the folder is its owner's only");
    }
    drop(server);
    assert_eq!(databases_in(&cwd.0), Vec::<String>::new(), "nothing in the current directory");
    assert!(!home.0.join(".local").exists());

    // XDG_DATA_HOME unset, or not absolute: $HOME/.local/share/junqi-web.
    for xdg in [None, Some(Path::new("relative/data"))] {
        let mut env = vec![("HOME", home.0.as_path())];
        env.extend(xdg.map(|x| ("XDG_DATA_HOME", x)));
        let (server, lines) = start(&cwd.0, &env);
        let db = home.0.join(".local/share/junqi-web/junqi-web.sqlite");
        assert_eq!(lines[1], format!("database {}", db.display()), "{xdg:?}");
        assert!(db.is_file(), "{xdg:?}: {} was created", db.display());
        drop(server);
        assert_eq!(databases_in(&cwd.0), Vec::<String>::new(), "{xdg:?}");
        assert!(!cwd.0.join("relative").exists(), "{xdg:?}: no relative data folder");
    }

    // Neither: the server refuses to guess, and says what to do.
    let (mut server, lines) = start(&cwd.0, &[]);
    assert_eq!(lines, ["", ""]);
    let status = server.0.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(server.0.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(!status.success() && err.contains("--db"), "{status}: {err}");
    assert_eq!(databases_in(&cwd.0), Vec::<String>::new());

    // `--db` names the file, relative to the current directory if asked.
    let mut child = Running(
        Command::new(env!("CARGO_BIN_EXE_junqi-web"))
            .args(["--port", "0", "--db", "junqi-web.sqlite"])
            .current_dir(&cwd.0)
            .env("XDG_DATA_HOME", &data.0)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut out = std::io::BufReader::new(child.0.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "database junqi-web.sqlite");
    assert!(cwd.0.join("junqi-web.sqlite").is_file());
}
