// Soundness: which threads run `single`'s closure is the backend's to say; `SingleScope` is sealed,
// so a user type cannot pose as a scope.
use ferrokkos::{TeamMember};
use ferrokkos::traits::{SingleScope};

struct Everyone<'t, 'a>(&'t TeamMember<'a>);

impl<'t, 'a> SingleScope<'a> for Everyone<'t, 'a> {
    fn team(&self) -> &TeamMember<'a> {
        self.0
    }
}

fn main() {}
