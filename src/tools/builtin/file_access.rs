//! Where the file tools' bytes come from and go: the disk, or the editor's buffers when a
//! front-end put an editor in the chat's [`FileAccess`] (`sayso acp` with the client's
//! `fs/read_text_file` / `fs/write_text_file`, so that edits land in the open buffers).
//!
//! It refuses to decide anything: the callers pass paths already resolved (links followed as
//! the tool's own rules say), and the checks — protected paths, confinement to the working
//! directory, the approval — happened before, the same for both. What the editor does not
//! offer falls back to the disk; an editor's error is the tool's error (never a silent disk
//! write instead). Calls block: the tools run them on a blocking thread.

use std::io::Write;
use std::path::Path;

use crate::tools::context::{FileAccess, ToolContext};

fn editor_error(e: String) -> std::io::Error {
    std::io::Error::other(format!("the editor: {e}"))
}

/// The file's bytes: the editor's text of it, else the disk's.
pub fn read(ctx: &ToolContext, path: &Path) -> std::io::Result<Vec<u8>> {
    read_with(&ctx.files, path)
}

fn read_with(files: &FileAccess, path: &Path) -> std::io::Result<Vec<u8>> {
    match files.editor().and_then(|e| e.read_text(path)) {
        Some(Ok(text)) => Ok(text.into_bytes()),
        Some(Err(e)) => Err(editor_error(e)),
        None => std::fs::read(path),
    }
}

/// Writes `bytes` over the existing file `path` (through the editor when it writes, as text).
pub fn write_over(ctx: &ToolContext, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(done) = editor_write(&ctx.files, path, bytes) {
        return done;
    }
    write_over_disk(path, bytes)
}

/// Creates the new file `path` with `bytes` (its directories made first, on the disk); fails
/// if it exists. Through the editor when it writes: the check for an existing file is the
/// disk's, just before.
pub fn create(ctx: &ToolContext, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if ctx.files.editor().is_some() && std::fs::symlink_metadata(path).is_ok() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    if let Some(done) = editor_write(&ctx.files, path, bytes) {
        return done;
    }
    // create_new: fails instead of overwriting if the file appeared meanwhile.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(bytes)
}

/// `None`: no editor, or one that does not write.
fn editor_write(files: &FileAccess, path: &Path, bytes: &[u8]) -> Option<std::io::Result<()>> {
    let editor = files.editor()?;
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        // Not text: the editor's write takes text only; the disk gets the bytes.
        Err(_) => return None,
    };
    Some(editor.write_text(path, text)?.map_err(editor_error))
}

/// Writes `bytes` over `path`, keeping its permissions: through a temporary file renamed over
/// it, or in place when the file has other hard links or no temporary file can be made.
fn write_over_disk(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    // A rename would bypass a read-only file: check that the file itself is writable.
    std::fs::OpenOptions::new().write(true).open(path)?;
    #[cfg(unix)]
    let linked = std::os::unix::fs::MetadataExt::nlink(&meta) > 1;
    #[cfg(not(unix))]
    let linked = false;
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = if linked {
        None
    } else {
        tempfile::Builder::new()
            .prefix(".sayso-edit-")
            .tempfile_in(dir)
            .ok()
    };
    let Some(mut tmp) = tmp else {
        return std::fs::write(path, bytes);
    };
    tmp.write_all(bytes)?;
    tmp.as_file().set_permissions(meta.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Keep the owner when we may (the file may belong to someone else).
        let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid()));
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::tools::context::EditorFiles;

    /// An editor that records writes and has its own text for one file.
    #[derive(Debug, Default)]
    struct Buffers {
        writes: Mutex<Vec<(String, String)>>,
        reads: bool,
        fail: bool,
    }

    impl EditorFiles for Buffers {
        fn read_text(&self, _path: &Path) -> Option<Result<String, String>> {
            self.reads.then(|| Ok("from the buffer".into()))
        }
        fn write_text(&self, path: &Path, text: &str) -> Option<Result<(), String>> {
            if self.fail {
                return Some(Err("denied".into()));
            }
            self.writes
                .lock()
                .unwrap()
                .push((path.display().to_string(), text.into()));
            Some(Ok(()))
        }
    }

    fn ctx_with(editor: Option<Arc<Buffers>>) -> ToolContext {
        let ctx = ToolContext::default();
        if let Some(e) = editor {
            ctx.files.set(e);
        }
        ctx
    }

    #[test]
    fn the_disk_without_an_editor_the_editor_with_one() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        let local = ctx_with(None);
        create(&local, &f, b"disk\n").unwrap();
        assert_eq!(read(&local, &f).unwrap(), b"disk\n");
        assert!(create(&local, &f, b"again").is_err(), "no overwrite");

        let buffers = Arc::new(Buffers {
            reads: true,
            ..Default::default()
        });
        let acp = ctx_with(Some(buffers.clone()));
        assert_eq!(read(&acp, &f).unwrap(), b"from the buffer");
        write_over(&acp, &f, b"new text").unwrap();
        let g = dir.path().join("sub/b.txt");
        create(&acp, &g, b"made").unwrap();
        assert!(
            create(&acp, &f, b"x").is_err(),
            "an existing file is not created over"
        );
        assert_eq!(
            *buffers.writes.lock().unwrap(),
            [
                (f.display().to_string(), "new text".to_owned()),
                (g.display().to_string(), "made".to_owned()),
            ]
        );
        assert_eq!(
            std::fs::read(&f).unwrap(),
            b"disk\n",
            "the disk is left to the editor"
        );
        assert!(!g.exists());
        // Bytes that are not text go to the disk.
        write_over(&acp, &f, &[0xff, 0xfe]).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), [0xff, 0xfe]);
    }

    #[test]
    fn an_editor_error_is_the_tools_error_never_a_disk_write() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "old").unwrap();
        let acp = ctx_with(Some(Arc::new(Buffers {
            fail: true,
            ..Default::default()
        })));
        let e = write_over(&acp, &f, b"new").unwrap_err();
        assert!(e.to_string().contains("the editor: denied"), "{e}");
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        // An editor that does not read: the disk.
        assert_eq!(read(&acp, &f).unwrap(), b"old");
    }
}
