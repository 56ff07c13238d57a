//! Reading the start-up settings: defaults from the table, then the TOML file
//! given with `--config`, then the command line (the last one wins). Flags
//! take MySQL's spelling with underscores (`--max_connections`) as well as
//! dashes. Every value, from either source, passes the same check
//! (`Kind::check`): a value out of range stops start-up with an error that
//! names the setting and what it accepts.

use crate::config::Config;
use crate::kind::Kind;
use crate::table::{Setting, SETTINGS};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, Command};
use std::collections::HashMap;
use std::path::Path;

/// Why the settings could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// A bad flag, or --help/--version: clap prints it and exits.
    CommandLine(clap::Error),
    /// The TOML file: unreadable, an unknown name or a bad value.
    File(String),
}

/// The command line's definition: `--config` and a flag for every start-up setting.
pub fn command() -> Command {
    let mut cmd = Command::new("turnstile")
        .version(env!("CARGO_PKG_VERSION"))
        .about("A MySQL-compatible server built around a fast connection layer")
        .args_override_self(true)
        .arg(Arg::new("config").long("config").value_name("FILE").help("TOML file with settings (same names as the flags, with underscores)."));
    for s in SETTINGS.iter().filter(|s| s.startup) {
        cmd = cmd.arg(flag_of(s));
    }
    cmd
}

fn flag_of(s: &'static Setting) -> Arg {
    let kind = s.kind;
    let mut arg = Arg::new(s.name).long(s.name.replace('_', "-")).value_name(s.name.to_ascii_uppercase()).help(help_of(s)).action(ArgAction::Set).value_parser(move |text: &str| kind.check(text));
    match kind {
        // `--statistics` alone means ON.
        Kind::Bool => arg = arg.num_args(0..=1).default_missing_value("ON").require_equals(false),
        Kind::Int { min, .. } if min < 0 => arg = arg.allow_negative_numbers(true),
        Kind::Secret => arg = arg.env(format!("TURNSTILE_{}", s.name.to_ascii_uppercase())).hide_env_values(true),
        _ => {}
    }
    if !s.default.is_empty() {
        arg = arg.default_value(s.default);
    }
    arg
}

fn help_of(s: &Setting) -> String {
    match s.kind {
        Kind::Int { .. } | Kind::Float { .. } | Kind::Choice(_) => format!("{} [accepts: {}]", s.help, s.kind.accepts()),
        _ => s.help.to_string(),
    }
}

/// `--max_connections=5` → `--max-connections=5`.
fn dashes(arg: String) -> String {
    let Some(rest) = arg.strip_prefix("--") else { return arg };
    match rest.split_once('=') {
        Some((name, value)) => format!("--{}={}", name.replace('_', "-"), value),
        None => format!("--{}", rest.replace('_', "-")),
    }
}

/// The settings from `args` (the program name first) and the file it names.
pub fn read(args: impl IntoIterator<Item = String>) -> Result<Config, ReadError> {
    let matches = command().try_get_matches_from(args.into_iter().map(dashes)).map_err(ReadError::CommandLine)?;
    let file = match matches.get_one::<String>("config") {
        Some(path) => read_file(Path::new(path)).map_err(ReadError::File)?,
        None => HashMap::new(),
    };
    let given = |name: &str| matches!(matches.value_source(name), Some(ValueSource::CommandLine | ValueSource::EnvVariable));
    let mut texts: HashMap<&str, String> = HashMap::new();
    for s in SETTINGS.iter().filter(|s| s.startup) {
        let text = if given(s.name) { matches.get_one::<String>(s.name).cloned() } else { file.get(s.name).cloned().or_else(|| matches.get_one::<String>(s.name).cloned()) };
        if let Some(t) = text {
            texts.insert(s.name, t);
        }
    }
    Config::from_texts(|name| texts.get(name).map(String::as_str)).map_err(ReadError::File)
}

/// The settings a TOML file gives, each checked: names must be start-up
/// settings, values must pass their check.
pub fn read_file(path: &Path) -> Result<HashMap<&'static str, String>, String> {
    let at = |e: String| format!("{}: {}", path.display(), e);
    let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| at(e.to_string()))?;
    let mut out = HashMap::new();
    for (name, value) in table {
        let Some(s) = crate::find(&name).filter(|s| s.startup) else {
            return Err(at(format!("unknown setting '{}'", name)));
        };
        let raw = match value {
            toml::Value::String(v) => v,
            toml::Value::Integer(v) => v.to_string(),
            toml::Value::Float(v) => v.to_string(),
            toml::Value::Boolean(v) => v.to_string(),
            other => return Err(at(format!("{}: unsupported value {}", name, other))),
        };
        let checked = s.kind.check(&raw).map_err(|e| at(format!("invalid value for '{}' ({}): {}", name, s.flag(), e)))?;
        out.insert(s.name, checked);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        std::iter::once("turnstile").chain(a.iter().copied()).map(String::from).collect()
    }

    #[test]
    fn defaults_flags_and_underscores() {
        let c = read(args(&["--max_connections=77", "--thread-handling", "one-thread-per-connection", "--statistics", "--reset-after-quit=false", "--thread-pool-nice", "-5"])).unwrap();
        assert_eq!(c.max_connections, 77);
        assert_eq!(c.thread_handling, crate::ThreadHandling::OneThreadPerConnection);
        assert!(c.statistics);
        assert!(!c.reset_after_quit);
        assert_eq!(c.thread_pool_nice, -5);
        assert_eq!(c.wait_timeout, 28800);
    }

    #[test]
    fn out_of_range_names_the_flag_and_range() {
        let e = match read(args(&["--max-connections=0"])) {
            Err(ReadError::CommandLine(e)) => e.to_string(),
            other => panic!("{:?}", other.map(|_| ())),
        };
        assert!(e.contains("--max-connections") && e.contains("1..=100000"), "{}", e);
    }

    #[test]
    fn file_values_are_checked_and_the_command_line_wins() {
        let dir = std::env::temp_dir().join(format!("turnstile-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.toml");
        std::fs::write(&path, "max_connections = 5\nwait_timeout = 9\nstatistics = false\n").unwrap();
        let c = read(args(&["--config", path.to_str().unwrap(), "--wait-timeout=10"])).unwrap();
        assert_eq!((c.max_connections, c.wait_timeout, c.statistics), (5, 10, false));
        std::fs::write(&path, "max_connections = 0\n").unwrap();
        let e = read_file(&path).unwrap_err();
        assert!(e.contains("max_connections") && e.contains("1..=100000"), "{}", e);
        std::fs::write(&path, "version = \"x\"\n").unwrap();
        assert!(read_file(&path).unwrap_err().contains("unknown setting 'version'"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
