//! Puts the locked mysql_async / mysql_common versions and rustc's version
//! into the binary, for the program's version line.
use std::process::Command;

fn locked_version(lock: &str, name: &str) -> String {
    let needle = format!("name = \"{name}\"\nversion = \"");
    lock.find(&needle)
        .map(|i| lock[i + needle.len()..].split('"').next().unwrap_or("?").to_string())
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock = std::fs::read_to_string(format!("{dir}/Cargo.lock")).unwrap_or_default();
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rustc-env=MYSQL_ASYNC_VERSION={}", locked_version(&lock, "mysql_async"));
    println!("cargo:rustc-env=MYSQL_COMMON_VERSION={}", locked_version(&lock, "mysql_common"));
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let v = Command::new(rustc).arg("--version").output().ok().and_then(|o| String::from_utf8(o.stdout).ok()).unwrap_or_default();
    println!("cargo:rustc-env=RUSTC_VERSION={}", v.split_whitespace().nth(1).unwrap_or("?"));
}
