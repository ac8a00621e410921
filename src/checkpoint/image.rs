//! A file's image: what undo needs to know of one path at one moment — whether it exists, and
//! as what: a regular file (content hash, permission bits, length), a symbolic link (its
//! target, never followed), or something undo does not handle (a directory where a file was, a
//! socket…).
//!
//! [`capture`] takes a path's image with `lstat` and reads a regular file with `O_NOFOLLOW`
//! (a link swapped in between is refused, not followed). The content goes into the store when
//! the [`Budget`] allows it (the file is at most `max_file_size` and the session's cap is not
//! reached); otherwise only its hash is kept and the image says so (`hash_only`), and undo
//! calls such a file unrecoverable when it would need it.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::object::ObjectId;
use super::store::Store;

/// One path at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum Image {
    Missing,
    File {
        hash: ObjectId,
        /// Permission bits (`0o7777` of the mode).
        mode: u32,
        len: u64,
        /// The content was not kept (too large, or the session's cap was reached).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hash_only: bool,
    },
    Symlink {
        target: String,
    },
    /// A directory, a socket, a device, a link whose target is not UTF-8: never restored.
    Other,
}

impl Image {
    /// The same file as far as undo is concerned (whether its content was kept aside).
    pub fn same(&self, other: &Image) -> bool {
        match (self, other) {
            (
                Image::File { hash, mode, .. },
                Image::File {
                    hash: h2, mode: m2, ..
                },
            ) => hash == h2 && mode == m2,
            (a, b) => a == b,
        }
    }

    /// Undo can bring this image back (its content, when it has one, was kept).
    pub fn restorable(&self) -> bool {
        match self {
            Image::File { hash_only, .. } => !hash_only,
            Image::Missing | Image::Symlink { .. } => true,
            Image::Other => false,
        }
    }

    /// The content's id, when the image is a file.
    pub fn hash(&self) -> Option<&ObjectId> {
        match self {
            Image::File { hash, .. } => Some(hash),
            _ => None,
        }
    }
}

/// What the content of files may still take in the store.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Files larger than this are kept by hash only.
    pub max_file_size: u64,
    /// New bytes this session may still add.
    pub remaining: u64,
    /// A file was kept by hash only because the cap was reached (for the notice).
    pub cap_reached: bool,
    /// New bytes added so far.
    pub added: u64,
}

impl Budget {
    pub fn new(max_file_size: u64, session_cap: u64) -> Self {
        Self {
            max_file_size,
            remaining: session_cap,
            cap_reached: false,
            added: 0,
        }
    }

    fn charge(&mut self, bytes: u64) {
        self.remaining = self.remaining.saturating_sub(bytes);
        self.added += bytes;
    }
}

/// Permission bits of a metadata.
pub fn mode_of(meta: &fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}

/// Opens a regular file for reading without following a final symbolic link.
pub(super) fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o.open(path)
}

/// The image of `path` now, its content stored when `budget` allows. A path that does not
/// exist is [`Image::Missing`]; a path whose parent is not a directory is missing too.
pub fn capture(path: &Path, store: &Store, budget: &mut Budget) -> io::Result<Image> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Image::Missing);
        }
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return Ok(match fs::read_link(path)?.into_os_string().into_string() {
            Ok(target) => Image::Symlink { target },
            Err(_) => Image::Other,
        });
    }
    if !ft.is_file() {
        return Ok(Image::Other);
    }
    let mode = mode_of(&meta);
    let file = open_nofollow(path)?;
    let len = file.metadata()?.len();
    if len > budget.max_file_size {
        let (hash, len) = ObjectId::of_reader(file)?;
        return Ok(Image::File {
            hash,
            mode,
            len,
            hash_only: true,
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(budget.max_file_size + 1)
        .read_to_end(&mut bytes)?;
    let hash = ObjectId::of(&bytes);
    let len = bytes.len() as u64;
    let hash_only = if store.contains(&hash) {
        false
    } else if len > budget.remaining || len > budget.max_file_size {
        budget.cap_reached |= len <= budget.max_file_size;
        true
    } else {
        if store.put_as(&hash, &bytes)? {
            budget.charge(len);
        }
        false
    };
    Ok(Image::File {
        hash,
        mode,
        len,
        hash_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_of_each_kind_of_path_and_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let p = dir.path().join("p");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("small"), b"abc").unwrap();
        fs::write(p.join("big"), vec![b'x'; 100]).unwrap();
        let mut b = Budget::new(10, 1000);
        let small = capture(&p.join("small"), &store, &mut b).unwrap();
        assert!(matches!(
            &small,
            Image::File {
                len: 3,
                hash_only: false,
                ..
            }
        ));
        assert!(store.contains(small.hash().unwrap()));
        let big = capture(&p.join("big"), &store, &mut b).unwrap();
        assert!(matches!(
            &big,
            Image::File {
                len: 100,
                hash_only: true,
                ..
            }
        ));
        assert!(!store.contains(big.hash().unwrap()));
        assert!(!b.cap_reached);
        assert_eq!(
            capture(&p.join("none"), &store, &mut b).unwrap(),
            Image::Missing
        );
        assert_eq!(
            capture(&p.join("small/under"), &store, &mut b).unwrap(),
            Image::Missing
        );
        assert_eq!(capture(&p, &store, &mut b).unwrap(), Image::Other);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", p.join("link")).unwrap();
            assert_eq!(
                capture(&p.join("link"), &store, &mut b).unwrap(),
                Image::Symlink {
                    target: "/etc/passwd".into()
                }
            );
        }
        // The cap: a new small file past it is kept by hash only, and said.
        let mut tight = Budget::new(10, 2);
        fs::write(p.join("other"), b"defg").unwrap();
        let other = capture(&p.join("other"), &store, &mut tight).unwrap();
        assert!(matches!(
            other,
            Image::File {
                hash_only: true,
                ..
            }
        ));
        assert!(tight.cap_reached);
        // What the store already has costs nothing.
        assert!(matches!(
            capture(&p.join("small"), &store, &mut tight).unwrap(),
            Image::File {
                hash_only: false,
                ..
            }
        ));
    }

    #[test]
    fn same_ignores_whether_the_content_was_kept() {
        let id = ObjectId::of(b"a");
        let f = |mode, hash_only| Image::File {
            hash: id.clone(),
            mode,
            len: 1,
            hash_only,
        };
        assert!(f(0o644, false).same(&f(0o644, true)));
        assert!(!f(0o644, false).same(&f(0o755, false)));
        assert!(!f(0o644, false).same(&Image::Missing));
        assert!(Image::Missing.same(&Image::Missing));
    }
}
