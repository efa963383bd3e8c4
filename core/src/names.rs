//! Fieldless enums whose values have one snake_case name each, declared once.
//!
//! [`named_enum!`] writes the enum, its `ALL`/`NAMES`/`COUNT` tables, `name()`, and
//! serde as that name, from one list of `Variant = "name"` lines, so the names cannot
//! drift between the tables, the JSON and the docs.

/// Declares a fieldless enum with a snake_case name per variant.
///
/// ```ignore
/// named_enum! {
///     /// What kind of action the game waits for.
///     #[derive(PartialOrd, Ord)]
///     pub enum Phase {
///         /// Sides still have to deploy.
///         Deploy = "deploy",
///         …
///     }
/// }
/// ```
///
/// Generates `Clone, Copy, Debug, PartialEq, Eq, Hash` (further derives go in the
/// attributes), `ALL` (every value in declaration order, so `v as usize` indexes it),
/// `NAMES`, `COUNT`, `name()`, `from_index()`, `from_exact_name()` (the name exactly;
/// types with friendlier parsing keep their own `from_name`), and serde as the name
/// (an unknown name is refused with serde's "unknown variant" message listing
/// `NAMES`). `Variant = "name" | "old_name",` also reads a former name.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)*, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order (`value as usize` is its index here).
            pub const ALL: [$name; [$($text),*].len()] = [$($name::$variant),*];
            /// Every value's name, in the order of `ALL`.
            pub const NAMES: [&'static str; [$($text),*].len()] = [$($text),*];
            /// The number of values.
            pub const COUNT: usize = [$($text),*].len();

            /// The snake_case name, as in JSON.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The value at a dense index (the inverse of `value as usize`).
            pub fn from_index(index: usize) -> Option<$name> {
                Self::ALL.get(index).copied()
            }

            /// The value with exactly this snake_case name (or a name it had before,
            /// which records and older texts may hold).
            pub fn from_exact_name(text: &str) -> Option<$name> {
                match text { $($text $(| $alias)* => Some($name::$variant),)* _ => None }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Names;
                impl serde::de::Visitor<'_> for Names {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "one of {:?}", $name::NAMES)
                    }
                    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<$name, E> {
                        $name::from_exact_name(text)
                            .ok_or_else(|| E::unknown_variant(text, &$name::NAMES))
                    }
                }
                d.deserialize_str(Names)
            }
        }
    };
}

pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    use crate::{EndReason, Phase, Side};

    #[test]
    fn names_serde_and_former_names() {
        for reason in EndReason::ALL {
            assert_eq!(EndReason::from_exact_name(reason.name()), Some(reason));
            assert_eq!(serde_json::to_string(&reason).unwrap(), format!("\"{}\"", reason.name()));
        }
        // Records made before the time-out's name was unified still read.
        assert_eq!(serde_json::from_str::<EndReason>("\"time_outs\"").unwrap(), EndReason::Timeouts);
        assert_eq!(EndReason::Timeouts.name(), "timeouts");
        let refused = serde_json::from_str::<Phase>("\"play\"").unwrap_err().to_string();
        assert!(refused.contains("unknown variant `play`, expected one of"), "{refused}");
        assert_eq!(Side::from_index(2), Some(Side::North));
        assert_eq!(Side::NAMES, ["south", "east", "north", "west"]);
    }
}
