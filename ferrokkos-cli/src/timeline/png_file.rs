//! Writing a picture as a PNG file.

use std::path::Path;

use super::render::Picture;

/// The PNG encoding of `picture` (8-bit RGB).
pub(crate) fn encode_png(picture: &Picture) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, picture.width, picture.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let encode = |e: png::EncodingError| format!("encoding the PNG failed: {e}");
    let mut writer = encoder.write_header().map_err(encode)?;
    writer.write_image_data(&picture.rgb).map_err(encode)?;
    writer.finish().map_err(encode)?;
    Ok(bytes)
}

/// Writes `picture` to `path` as PNG; an error says what failed (the caller names the path).
pub(crate) fn write_png(path: &Path, picture: &Picture) -> Result<(), String> {
    let bytes = encode_png(picture)?;
    std::fs::write(path, bytes).map_err(|e| format!("cannot write: {e}"))
}
