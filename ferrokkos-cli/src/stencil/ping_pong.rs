//! The sweep's two fields: each step reads the current one and writes the other, which then
//! becomes current.

/// Two fields of any storage, one of them current.
pub struct PingPong<V> {
    /// The fields.
    fields: [V; 2],
    /// Which one is current.
    current: usize,
}

impl<V> PingPong<V> {
    /// The fields, `first` current.
    pub fn new(first: V, second: V) -> Self {
        PingPong {
            fields: [first, second],
            current: 0,
        }
    }

    /// The current field: the latest one written, or the first before any step.
    pub fn current(&self) -> &V {
        &self.fields[self.current]
    }

    /// Both fields, to initialize them.
    pub fn both_mut(&mut self) -> (&mut V, &mut V) {
        let [a, b] = &mut self.fields;
        (a, b)
    }

    /// One step: `step(from, to)`, from the current field to the other one, which becomes current
    /// when the step succeeds.
    pub fn step<E>(&mut self, step: impl FnOnce(&V, &mut V) -> Result<(), E>) -> Result<(), E> {
        let [a, b] = &mut self.fields;
        let (from, to) = if self.current == 0 {
            (&*a, b)
        } else {
            (&*b, a)
        };
        step(from, to)?;
        self.current = 1 - self.current;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_alternate_the_fields() {
        let mut f = PingPong::new(vec![1], vec![0]);
        let add_one = |from: &Vec<i32>, to: &mut Vec<i32>| -> Result<(), ()> {
            to[0] = from[0] + 1;
            Ok(())
        };
        for want in 2..6 {
            f.step(add_one).unwrap();
            assert_eq!(f.current()[0], want);
        }
        // A failed step leaves the current field.
        assert_eq!(f.step(|_, _| Err("no")), Err("no"));
        assert_eq!(f.current()[0], 5);
        let (a, b) = f.both_mut();
        (a[0], b[0]) = (7, 8);
        assert_eq!(f.current()[0], 7);
    }
}
