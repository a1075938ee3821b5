//! PNG screenshots of the simulator's view tree.

use super::View;

/// Render `root` on a `width`×`height` canvas as PNG bytes.
pub fn render_png(root: &View, width: u32, height: u32) -> Vec<u8> {
    let _ = (root, width, height);
    unimplemented!("renderer lands with the simulator")
}
