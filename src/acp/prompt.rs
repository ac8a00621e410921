//! An ACP prompt's content blocks as the one message [`crate::agent::Agent::send`] takes:
//! text as it is; a resource link to a local file as an `@path` mention (so it is attached, or
//! refused, under the file tools' rules, like a mention typed in the TUI); an embedded text
//! resource (a file's contents the editor sent) as a fenced block naming its URI, its secret
//! values scrubbed. Pure.
//!
//! Image blocks go with the message as image parts ([`images`]), under the limits of an
//! attached `@picture.png` (a type the providers take, at most
//! [`crate::attach::read::MAX_IMAGE_BYTES`], data that decodes); one that does not pass is left
//! out and the message says why. Audio and binary resources are left out, and the message says
//! so (the initialize response does not offer them).

use std::path::Path;

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource, ImageContent};

/// The image parts of `blocks` that pass (those that do not are named in [`message`]).
pub fn images(blocks: &[ContentBlock]) -> Vec<crate::provider::Image> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(i) => image(i).ok(),
            _ => None,
        })
        .collect()
}

/// An editor's image as an image part, or why it is not sent.
fn image(i: &ImageContent) -> Result<crate::provider::Image, String> {
    use base64::Engine as _;
    let mime = i.mime_type.trim().to_ascii_lowercase();
    if !matches!(
        mime.as_str(),
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    ) {
        return Err(format!(
            "its type `{}` is not png, jpeg, gif or webp",
            crate::text_cut::head_chars(&i.mime_type, 40)
        ));
    }
    let max = crate::attach::read::MAX_IMAGE_BYTES;
    // Four base64 characters carry three bytes: refuse what is too large before decoding.
    if i.data.len() as u64 > max.div_ceil(3) * 4 + 4 {
        return Err(format!("it is larger than {} MiB", max >> 20));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(i.data.trim())
        .map_err(|_| "its data is not base64".to_owned())?;
    if bytes.is_empty() {
        return Err("it is empty".into());
    }
    Ok(crate::provider::Image {
        mime,
        base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// The message for `blocks`; `cwd` makes a linked file inside it a relative mention.
pub fn message(blocks: &[ContentBlock], cwd: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::ResourceLink(link) => parts.push(link_text(&link.uri, &link.name, cwd)),
            ContentBlock::Resource(r) => match &r.resource {
                EmbeddedResourceResource::TextResourceContents(t) => {
                    parts.push(embedded(&t.uri, &t.text));
                }
                _ => parts.push(format!("(a binary resource, {}, was left out)", uri_of(r))),
            },
            ContentBlock::Image(i) => {
                if let Err(why) = image(i) {
                    parts.push(format!("(an image was left out: {why})"));
                }
            }
            ContentBlock::Audio(_) => parts.push("(an audio clip was left out)".into()),
            _ => parts.push("(a content block of an unknown type was left out)".into()),
        }
    }
    parts.join("\n\n")
}

fn uri_of(r: &agent_client_protocol::v1::schema::EmbeddedResource) -> String {
    match &r.resource {
        EmbeddedResourceResource::TextResourceContents(t) => t.uri.clone(),
        EmbeddedResourceResource::BlobResourceContents(b) => b.uri.clone(),
        _ => "unknown".into(),
    }
}

/// A linked file as a mention: relative when under `cwd`. A link that is not a local file, or
/// whose path has whitespace (a mention ends at whitespace), is named as text, not attached.
pub fn link_text(uri: &str, name: &str, cwd: &Path) -> String {
    match file_path(uri) {
        Some(path) if !path.chars().any(char::is_whitespace) => {
            let p = Path::new(&path);
            match p.strip_prefix(cwd) {
                Ok(rel) if !rel.as_os_str().is_empty() => format!("@{}", rel.display()),
                _ => format!("@{path}"),
            }
        }
        _ => format!("(the editor linked {name}: {uri}, not attached)"),
    }
}

/// A text resource the editor embedded: a fence longer than any run of backticks inside.
pub fn embedded(uri: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let label = file_path(uri).unwrap_or_else(|| uri.to_owned());
    let body = crate::secrets::scrub_owned(text.to_owned());
    format!(
        "{label} (sent by the editor):\n{fence}\n{}\n{fence}",
        body.trim_end_matches('\n')
    )
}

/// The local path of a `file://` URI, percent-decoded (`None`: another scheme, or a host).
pub fn file_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    percent_decode(rest)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(out).ok()?;
    (!decoded.contains('\0')).then_some(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{
        EmbeddedResource, ResourceLink, TextContent, TextResourceContents,
    };

    #[test]
    fn images_pass_the_limits_of_an_attached_picture() {
        use agent_client_protocol::v1::schema::ImageContent;
        let block = |mime: &str, data: &str| ContentBlock::Image(ImageContent::new(data, mime));
        let big = "A".repeat((crate::attach::read::MAX_IMAGE_BYTES as usize / 3 + 8) * 4);
        // (block, sent, why it is left out)
        let rows = [
            (block("image/png", "iVBORw0KGgo="), true, ""),
            (block("IMAGE/JPEG", " /9j/4AAQ "), true, ""),
            (block("image/svg+xml", "PHN2Zy8+"), false, "is not png"),
            (block("image/gif", "%%%"), false, "is not base64"),
            (block("image/webp", ""), false, "is empty"),
            (block("image/png", &big), false, "larger than 5 MiB"),
        ];
        for (b, sent, why) in rows {
            let blocks = [b];
            assert_eq!(images(&blocks).len(), usize::from(sent), "{why}");
            let text = message(&blocks, Path::new("/p"));
            if sent {
                assert_eq!(text, "", "a sent image adds no words");
            } else {
                assert!(
                    text.contains("an image was left out") && text.contains(why),
                    "{text}"
                );
            }
        }
        let sent = images(&[block("IMAGE/JPEG", " /9j/4AAQ ")]);
        assert_eq!(
            (sent[0].mime.as_str(), sent[0].base64.as_str()),
            ("image/jpeg", "/9j/4AAQ")
        );
    }

    #[test]
    fn file_uris_become_paths() {
        // (uri, path)
        let rows = [
            ("file:///tmp/a.rs", Some("/tmp/a.rs")),
            ("file://localhost/tmp/a.rs", Some("/tmp/a.rs")),
            ("file:///tmp/a%20b.rs", Some("/tmp/a b.rs")),
            ("file:///tmp/%zz", None),
            ("file:///tmp/%00x", None),
            ("file://host/tmp/a.rs", None),
            ("https://example.com/a.rs", None),
            ("zed:///a.rs", None),
        ];
        for (uri, path) in rows {
            assert_eq!(file_path(uri).as_deref(), path, "{uri}");
        }
    }

    #[test]
    fn links_are_mentions_relative_to_the_directory() {
        let cwd = Path::new("/p");
        // (uri, text)
        let rows = [
            ("file:///p/src/a.rs", "@src/a.rs"),
            ("file:///elsewhere/b.rs", "@/elsewhere/b.rs"),
            (
                "file:///p/a%20b.rs",
                "(the editor linked n: file:///p/a%20b.rs, not attached)",
            ),
            (
                "https://x.org/y",
                "(the editor linked n: https://x.org/y, not attached)",
            ),
        ];
        for (uri, text) in rows {
            assert_eq!(link_text(uri, "n", cwd), text, "{uri}");
        }
    }

    #[test]
    fn a_prompt_joins_its_blocks() {
        let blocks = vec![
            ContentBlock::Text(TextContent::new("look at")),
            ContentBlock::ResourceLink(ResourceLink::new("a.rs", "file:///p/a.rs")),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "x ``` y\n",
                    "file:///p/b.rs",
                )),
            )),
        ];
        assert_eq!(
            message(&blocks, Path::new("/p")),
            "look at\n\n@a.rs\n\n/p/b.rs (sent by the editor):\n````\nx ``` y\n````"
        );
    }
}
