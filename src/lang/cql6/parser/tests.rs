//! Unit tests of the CQL 6 parser's own tables.

use super::*;

#[test]
fn the_families_word_lists_are_disjoint() {
    let mut owner: HashMap<&str, &str> = HashMap::new();
    for (family, words) in FAMILY_WORDS {
        for word in *words {
            if let Some(other) = owner.insert(word, family) {
                panic!("`{word}` is claimed by both `{other}` and `{family}`");
            }
        }
    }
    assert_eq!(owner.len(), KEYWORDS.len());
}

#[test]
fn the_keyword_list_is_sorted_and_holds_every_family_word() {
    assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]), "KEYWORDS is not strictly sorted");
    for (family, words) in FAMILY_WORDS {
        for word in *words {
            assert!(KEYWORDS.binary_search(word).is_ok(), "`{word}` of `{family}` is missing");
        }
    }
}
