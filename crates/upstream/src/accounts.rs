//! The backend's accounts, read from `mysql.user` by the monitor account,
//! so applications log in to Turnstile with the users and passwords they
//! already have. Only mysql_native_password accounts (and accounts without
//! a password) can be proxied: their stored SHA1(SHA1(password)) checks a
//! client's scramble, and the client's token then yields SHA1(password),
//! which logs in to the backend. Other plugins (caching_sha2_password,
//! ed25519, unix_socket) are left out and their logins fail with 1045.

use crate::LearnedAccount;

fn col(names: &[String], want: &str) -> Option<usize> {
    names.iter().position(|n| n.eq_ignore_ascii_case(want))
}

/// `*HEX` (41 characters) as 20 bytes.
fn native_hash(s: &str) -> Option<[u8; 20]> {
    let hex = s.strip_prefix('*')?;
    if hex.len() != 40 {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// Accounts from `SELECT * FROM mysql.user` (MariaDB's or MySQL's columns).
pub fn from_rows(names: &[String], rows: &[Vec<Option<String>>]) -> Vec<LearnedAccount> {
    let (Some(user), Some(host)) = (col(names, "User"), col(names, "Host")) else { return Vec::new() };
    let plugin = col(names, "plugin");
    let auth = col(names, "authentication_string");
    let password = col(names, "Password");
    let is_role = col(names, "is_role");
    let super_priv = col(names, "Super_priv");
    let text = |r: &Vec<Option<String>>, c: Option<usize>| c.and_then(|c| r.get(c).cloned().flatten()).unwrap_or_default();
    let mut out = Vec::new();
    for r in rows {
        if text(r, is_role).eq_ignore_ascii_case("Y") {
            continue;
        }
        let host_text = text(r, Some(host));
        let user_text = text(r, Some(user));
        if host_text.is_empty() {
            continue; // MariaDB's PUBLIC role row
        }
        let plugin_text = text(r, plugin);
        let stored = match text(r, auth) {
            s if !s.is_empty() => s,
            _ => text(r, password),
        };
        let hash2 = match (plugin_text.as_str(), stored.as_str()) {
            ("mysql_native_password" | "", "") => None,
            ("mysql_native_password" | "", s) => match native_hash(s) {
                Some(h) => Some(h),
                None => continue,
            },
            _ => continue,
        };
        // MariaDB's root@localhost: plugin '' and no password is unix_socket
        // authentication in disguise only when `plugin` says so; an empty
        // plugin with an empty password is a password-less native account.
        out.push(LearnedAccount { user: user_text, host: host_text, hash2, admin: text(r, super_priv).eq_ignore_ascii_case("Y") });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_accounts_are_learned_and_others_left_out() {
        let names: Vec<String> = ["Host", "User", "Password", "Super_priv", "plugin", "authentication_string", "is_role"].iter().map(|s| s.to_string()).collect();
        let row = |v: [&str; 7]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
        let rows = vec![
            row(["%", "app", "*D821809F681A40A6E379B50D0463EFAE20BDD122", "N", "mysql_native_password", "*D821809F681A40A6E379B50D0463EFAE20BDD122", "N"]),
            row(["localhost", "s2", "", "N", "caching_sha2_password", "$A$005$xx", "N"]),
            row(["", "PUBLIC", "", "N", "", "", "Y"]),
            row(["%", "admin", "", "Y", "mysql_native_password", "", "N"]),
            row(["%", "bad", "", "N", "mysql_native_password", "*XYZ", "N"]),
        ];
        let got = from_rows(&names, &rows);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].user, "app");
        assert!(got[0].hash2.is_some() && !got[0].admin);
        assert_eq!(got[1].user, "admin");
        assert!(got[1].hash2.is_none() && got[1].admin);
    }
}
