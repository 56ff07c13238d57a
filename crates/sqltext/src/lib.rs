//! turnstile-sqltext: MySQL's SQL text, read the same way everywhere.
//!
//! Why a crate of its own: the SQL front, the server, the engine boundary
//! (blackhole) and the SQLite engine all read SQL text, and where each kept
//! its own copy of a rule the copies drifted apart (which `--` is a comment,
//! for one). Everything here is pure text handling: no engine, no session, no
//! storage, so the front can use it without depending on an engine and the
//! engines without depending on the front. It sits just above
//! turnstile-wire (for `Value`).
//!
//! - `lex`: the lexer (tokens, statement splitting, `?` counting, hex and bit
//!   literals);
//! - `scan`: comments and a statement's first word, by MySQL's rules, for the
//!   lexer and every byte scanner;
//! - `cursor`: `TokenCursor`, the cursor the parsers walk tokens with;
//! - `like`: LIKE patterns, matched without recursion; `collate`: the
//!   case-insensitive collation (utf8mb4_general_ci) LIKE folds case by;
//! - `types`: the MySQL column types by name (`Base`);
//! - `temporal`: date and time texts; `temporal_cast`: CAST to DATE,
//!   DATETIME and TIME; `time_read`: a date function's argument as MariaDB
//!   reads it; `civil`: civil-date arithmetic;
//! - `hex`: UNHEX;
//! - `int_text`: a string read by CAST AS SIGNED/UNSIGNED (its digits, what it cuts);
//! - `item_type`: the INT type MariaDB gives comparisons, short literals and some functions;
//! - `expr_type`: the type MariaDB gives a select item, from its text and its columns' types;
//! - `decimal`: exact DECIMAL numbers and MySQL's result types of their arithmetic;
//! - `clause`: which clause a name stands in, for error messages;
//! - `charsets`: the character sets and collations SHOW and information_schema list;
//! - `sql_mode`: the modes by name and bit, as SET sql_mode reads them.

pub mod charsets;
pub mod civil;
pub mod clause;
pub mod collate;
pub mod compound;
pub mod cursor;
pub mod decimal;
pub mod digest;
pub mod expr_type;
pub mod hex;
pub mod int_text;
pub mod item_type;
pub mod keywords;
pub mod lex;
pub mod like;
pub mod num_text;
pub mod parens;
pub mod scan;
pub mod sql_mode;
pub mod temporal;
pub mod temporal_cast;
pub mod time_read;
pub mod types;
