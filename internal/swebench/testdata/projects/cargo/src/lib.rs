//! Tests whose outcomes are fixed by how they are written.

pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::add;

    #[test]
    fn passes() {
        assert_eq!(add(1, 1), 2);
    }

    #[test]
    fn fails() {
        assert_eq!(add(1, 1), 3);
    }

    #[test]
    #[ignore]
    fn ignored() {}

    #[test]
    #[should_panic]
    fn panics() {
        panic!("expected");
    }
}
