// Soundness: the race rules trust that a `TokenId` is an id its thread holds. Safe code cannot
// make one outside `acquire` (no constructor, private fields), cannot make a token accessor to
// acquire from, cannot declare its own type a token (`KernelToken`, sealed) or capture one as a
// token (`Capture` for `TokenUse`), and cannot keep a block's hold open past its scope in the
// shadow (`TokenScope`, sealed).
#![forbid(unsafe_code)]
use ferrokkos::__private::capture::KernelToken;
use ferrokkos::__private::shadow::TokenScope;
use ferrokkos::__private::TokenAccess;

struct MyToken;

impl KernelToken for MyToken {}

impl TokenScope for MyToken {
    fn scoped(body: impl FnOnce() -> Self) -> Self {
        body()
    }
}

fn main() {
    let _access: TokenAccess<'static> = TokenAccess::new(todo!(), 4);
}
