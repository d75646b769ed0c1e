// A DualView's side borrowed for reading cannot be held across a modification of the other side
// (`modify_*` and `sync_*` take `&mut self`): the read would see values that are about to go stale.
use ferrokkos::DualView;

fn main() {
    let mut dv = DualView::<f64, 1>::new("dv", [4]).unwrap();
    let host = dv.view_host().unwrap();
    dv.modify_device().unwrap();
    let _ = host.get(0);
}
