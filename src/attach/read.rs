//! One attachment read from disk, under the file tools' rules: the path resolved after `..`
//! and symlinks ([`crate::tools::builtin::paths`]); nothing under `/proc`, `/sys` or `/dev`
//! ([`crate::secrets::own_files`], which also checks the opened file again), no other
//! process's data ([`read_refusal`]), nothing in sayso's own config, data and state
//! directories or config files (secrets and sessions), nothing a `deny` path rule of
//! `read_file` covers; the text scrubbed of known secrets. A refusal is a sentence for the chat,
//! and nothing of the file is sent.
//!
//! What it refuses to do: read more than the caps ([`MAX_TEXT_BYTES`], [`MAX_LISTING`],
//! [`MAX_IMAGE_BYTES`]), or anything but a regular file or a directory.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::provider::Image;
use crate::secrets::own_files::{self, Refused};
use crate::tools::builtin::paths::{display, resolve};
use crate::tools::builtin::protected::read_refusal;
use crate::tools::policy::rules::paths::PathDenials;

/// An attached text file is cut after this many bytes (at a line end), and said so.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// An attached directory lists at most this many entries, and says how many more there are.
pub const MAX_LISTING: usize = 500;
/// A larger image is refused.
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// Bytes read of a text file at most (more than [`MAX_TEXT_BYTES`], for a line range).
const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// Where attachments are read from, and what may not be.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub cwd: PathBuf,
    /// sayso's own directories and config files.
    pub own: Vec<PathBuf>,
    /// `read_file`'s deny path rules.
    pub denials: PathDenials,
}

/// What one mention attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// A block of text for the model (a file, its lines or a directory's listing).
    Text(String),
    Image(Image),
}

/// The image types attached as images, by extension.
pub fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// `Ok(None)` when nothing is at `path` (the `@` was not a file mention); the refusal's words
/// when it may not be attached.
pub fn read(
    place: &Place,
    path: &str,
    range: Option<super::mention::LineRange>,
) -> Result<Option<Read>, String> {
    let r = resolve(&place.cwd, path);
    let shown = display(&place.cwd, &r.path);
    let refused = |why: String| Err(format!("@{path} was not attached: {why}"));
    if let Some(why) = refusal(place, &r.path) {
        return refused(why);
    }
    let Ok(meta) = std::fs::metadata(&r.path) else {
        return Ok(None);
    };
    if meta.is_dir() {
        if range.is_some() {
            return refused(format!(
                "`{shown}` is a directory; a line range needs a file"
            ));
        }
        return Ok(Some(Read::Text(listing(place, &r.path, &shown))));
    }
    if let Some(mime) = image_mime(&r.path) {
        let bytes = match own_files::read_at_most(&r.path, &[], MAX_IMAGE_BYTES) {
            Ok(b) => b,
            Err(e) => return refused(refused_words(&e, &shown, MAX_IMAGE_BYTES)),
        };
        return Ok(Some(Read::Image(Image {
            mime: mime.to_owned(),
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        })));
    }
    let bytes = match own_files::read_at_most(&r.path, &[], MAX_READ_BYTES) {
        Ok(b) => b,
        Err(e) => return refused(refused_words(&e, &shown, MAX_READ_BYTES)),
    };
    let text = String::from_utf8_lossy(&bytes);
    let block = super::block::text_block(&shown, &text, range)
        .map_err(|why| format!("@{path} was not attached: {why}"))?;
    Ok(Some(Read::Text(crate::secrets::scrub_owned(block))))
}

fn refused_words(e: &Refused, shown: &str, limit: u64) -> String {
    match e {
        Refused::Missing => format!("`{shown}` does not exist"),
        Refused::Refused(why) if why.contains("more than the") => {
            format!("`{shown}` is larger than {limit} bytes")
        }
        Refused::Refused(why) => format!("`{shown}`: {why}"),
    }
}

/// Why `path` (resolved) may not be attached at all.
fn refusal(place: &Place, path: &Path) -> Option<String> {
    if let Some(why) = read_refusal(path) {
        return Some(why);
    }
    if let Some(tree) = ["/proc", "/sys", "/dev"]
        .iter()
        .find(|t| path.starts_with(t))
    {
        return Some(format!(
            "it is under {tree}: system and process data are never attached"
        ));
    }
    if let Some(dir) = place
        .own
        .iter()
        .find(|d| path.starts_with(d) || path.starts_with(resolve(d, ".").path))
    {
        return Some(format!(
            "it is in sayso's own files ({}), which hold its keys and sessions",
            dir.display()
        ));
    }
    if place.denials.denies(&resolve(&place.cwd, ".").path, path) {
        return Some(format!(
            "a deny rule of read_file covers it ({})",
            place.denials.patterns().join(", ")
        ));
    }
    None
}

/// A directory's entries (gitignore-aware, one level), at most [`MAX_LISTING`].
fn listing(place: &Place, dir: &Path, shown: &str) -> String {
    let mut names: Vec<String> = ignore::WalkBuilder::new(dir)
        .max_depth(Some(1))
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.depth() == 1)
        .filter(|e| refusal(place, e.path()).is_none())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_some_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    let total = names.len();
    names.truncate(MAX_LISTING);
    let mut out = format!("Attached directory @{shown} ({total} entries):\n````\n");
    out.push_str(&names.join("\n"));
    out.push_str("\n````");
    if total > MAX_LISTING {
        out.push_str(&format!(
            "\n(listing cut: the first {MAX_LISTING} of {total} entries)"
        ));
    }
    crate::secrets::scrub_owned(out)
}
