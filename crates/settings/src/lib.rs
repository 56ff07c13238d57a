//! turnstile-settings: every setting and system variable, defined once.
//!
//! `table.rs` is the one list (name, kind and range, default, help, start-up
//! or not, variable scope, dynamic or not); `kind.rs` the one check of a
//! value against it; `config.rs` the typed view the server reads;
//! `command_line.rs` reads the command line and the TOML file into it. The
//! SQL front's system variables (turnstile-sql's vars.rs) read the same table
//! for SHOW VARIABLES and SET.

#[cfg(feature = "command-line")]
pub mod command_line;
pub mod config;
pub mod kind;
pub mod reference;
pub mod table;

pub use config::{Config, Durability, EngineKind, ThreadHandling};
pub use kind::Kind;
pub use table::{block_bytes, find, Scope, Setting, ISOLATION_LEVELS, SETTINGS};
