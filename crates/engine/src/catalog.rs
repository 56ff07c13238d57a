//! The durable list of databases: one directory per database under the data
//! directory, as MySQL does. Engines keep their own files inside it. The
//! directories are created 0700: only the server's user may look inside.

use crate::SqlError;
use std::collections::BTreeSet;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Schemas that always exist and are answered by the server itself.
pub const SYSTEM_SCHEMAS: [&str; 3] = ["information_schema", "mysql", "performance_schema"];

/// Sub-directory of the data directory that holds databases.
const DATABASES_DIR: &str = "databases";
/// Mode of the catalog's directories (owner only).
const DIR_MODE: u32 = 0o700;

/// The directory listing is read once at start and kept in memory (every
/// create and drop goes through here), so checking a database on connect costs
/// a read lock, not a stat(2).
#[derive(Debug)]
pub struct Catalog {
    root: PathBuf,
    names: RwLock<BTreeSet<String>>,
}

impl Catalog {
    pub fn open(datadir: &Path) -> std::io::Result<Catalog> {
        let root = datadir.join(DATABASES_DIR);
        std::fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(&root)?;
        let names = std::fs::read_dir(&root)?.filter_map(|e| e.ok()).filter(|e| e.path().is_dir()).filter_map(|e| e.file_name().into_string().ok()).collect();
        Ok(Catalog { root, names: RwLock::new(names) })
    }

    fn names(&self) -> std::sync::RwLockReadGuard<'_, BTreeSet<String>> {
        self.names.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn path_of(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// MySQL's rules, restricted so a name is always a safe directory name.
    pub fn validate_name(name: &str) -> Result<(), SqlError> {
        let ok = !name.is_empty() && name.len() <= 64 && !name.ends_with(' ') && name != "." && name != ".." && !name.chars().any(|c| c == '/' || c == '\\' || c == '\0' || c.is_control());
        if ok {
            Ok(())
        } else {
            Err(SqlError::bad_database_name(name))
        }
    }

    pub fn is_system(name: &str) -> bool {
        SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(name))
    }

    pub fn exists(&self, name: &str) -> bool {
        if Self::is_system(name) {
            return true;
        }
        self.names().contains(name)
    }

    pub fn list(&self) -> Vec<String> {
        self.names().iter().cloned().collect()
    }

    pub fn create(&self, name: &str, if_not_exists: bool) -> Result<bool, SqlError> {
        Self::validate_name(name)?;
        if self.exists(name) {
            return if if_not_exists { Ok(false) } else { Err(SqlError::database_exists(name)) };
        }
        let mut names = self.names.write().unwrap_or_else(|e| e.into_inner());
        match std::fs::DirBuilder::new().mode(DIR_MODE).create(self.path_of(name)) {
            Ok(()) => {
                sync_dir(&self.root);
                names.insert(name.to_string());
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if if_not_exists {
                    Ok(false)
                } else {
                    Err(SqlError::database_exists(name))
                }
            }
            Err(e) => Err(SqlError::new(1006, "HY000", format!("Can't create database '{}' (errno: {})", name, e))),
        }
    }

    pub fn drop(&self, name: &str, if_exists: bool) -> Result<bool, SqlError> {
        if Self::is_system(name) {
            return Err(SqlError::specific_access_denied("DROP on a system schema"));
        }
        if !self.exists(name) {
            return if if_exists { Ok(false) } else { Err(SqlError::drop_missing_database(name)) };
        }
        let mut names = self.names.write().unwrap_or_else(|e| e.into_inner());
        names.remove(name);
        std::fs::remove_dir_all(self.path_of(name)).map_err(|e| SqlError::new(1010, "HY000", format!("Error dropping database (can't rmdir '{}', errno: {})", name, e)))?;
        sync_dir(&self.root);
        Ok(true)
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_list_drop() {
        let dir = std::env::temp_dir().join(format!("ts-catalog-{}", std::process::id()));
        let c = Catalog::open(&dir).unwrap();
        assert!(c.create("a", false).unwrap());
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(c.path_of("a")).unwrap().permissions().mode() & 0o777, 0o700);
        assert!(!c.create("a", true).unwrap());
        assert_eq!(c.create("a", false).unwrap_err().code, 1007);
        assert_eq!(c.create("../x", false).unwrap_err().code, 1102);
        assert!(c.exists("a") && c.exists("mysql"));
        assert_eq!(c.list(), vec!["a".to_string()]);
        assert!(c.drop("a", false).unwrap());
        assert_eq!(c.drop("a", false).unwrap_err().code, 1008);
        assert!(!c.drop("a", true).unwrap());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
