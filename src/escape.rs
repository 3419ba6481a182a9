//! Terminal safety: makes text from the cluster visible and inert before it
//! reaches a terminal.
//!
//! Object names, condition messages and event notes are written by anyone who
//! can create an object. Printed raw, an escape sequence in them could recolour
//! the screen, move the cursor, clear it, set the window title or plant an
//! OSC 8 hyperlink; bidi controls could reorder what the reader sees (Trojan
//! source); zero-width characters could make two different names look the
//! same. [`escape`] writes every such character as a short visible escape
//! (`\n`, `\t`, `\r`, `\x1b`, `\u{202e}`), and leaves ordinary text, accents,
//! CJK and emoji untouched. A literal backslash stays as it is, so Windows
//! paths and regexes in messages read naturally.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Escapes `s` for printing on one line: every control character (newlines
/// included), bidi control and invisible character becomes a visible escape.
/// Borrows `s` when nothing needs escaping, which is the common case.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_with(s, false)
}

/// Like [`escape`], but keeps line breaks as real newlines, for multi-line
/// evidence blocks such as a container's termination message. A `\r\n` pair
/// is a line break too and becomes `\n`; a lone `\r`, which could overwrite
/// the line, is escaped.
pub fn escape_multiline(s: &str) -> Cow<'_, str> {
    escape_with(s, true)
}

fn escape_with(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let first = unsafe_chars(s).find(|&(_, c)| match c {
        '\n' => !keep_newlines,
        // A CRLF pair is rewritten to a bare newline when lines are kept.
        '\r' if keep_newlines => true,
        _ => true,
    });
    let first = match (first.map(|(i, _)| i), looks_escaped(s)) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => match a.or(b) {
            Some(i) => i,
            None => return Cow::Borrowed(s),
        },
    };
    let start = first;
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..start]);
    let mut prev = None;
    let mut chars = s[start..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\r' if keep_newlines && chars.peek() == Some(&'\n') => {}
            c if is_unsafe(c, prev) => push_escaped(&mut out, c),
            // A backslash that would read as one of the escapes written
            // here is doubled: a real ESC prints `\x1b`, the text `\x1b`
            // prints `\\x1b`.
            '\\' if reads_as_escape(chars.clone()) => out.push_str("\\\\"),
            c => out.push(c),
        }
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// Whether what follows a backslash reads as an escape written here:
/// `xHH`, `u{H…}`, `n`, `t`, `r`.
fn reads_as_escape(mut rest: impl Iterator<Item = char> + Clone) -> bool {
    match rest.next() {
        Some('n' | 't' | 'r') => true,
        Some('x') => rest.take(2).filter(char::is_ascii_hexdigit).count() == 2,
        Some('u') => {
            rest.next() == Some('{') && {
                let digits: String = rest.take_while(|c| *c != '}').collect();
                (1..=6).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_hexdigit())
            }
        }
        _ => false,
    }
}

/// The offset of the first backslash in `s` that would read as an escape.
fn looks_escaped(s: &str) -> Option<usize> {
    s.match_indices('\\')
        .find(|(i, _)| reads_as_escape(s[i + 1..].chars()))
        .map(|(i, _)| i)
}

/// The characters of `s` that must not reach a terminal as they are, with
/// their byte offsets. A variation selector is judged by the character
/// before it.
fn unsafe_chars(s: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut prev = None;
    s.char_indices().filter(move |&(_, c)| {
        let bad = is_unsafe(c, prev);
        prev = Some(c);
        bad
    })
}

/// Whether `c` must not reach a terminal as it is; `prev` is the character
/// just before it.
fn is_unsafe(c: char, prev: Option<char>) -> bool {
    match c {
        // The emoji and text presentation selectors belong to the symbol
        // they follow ("❤️", keycap "1️⃣"); anywhere else, or one after
        // another, they carry hidden data.
        '\u{fe0e}' | '\u{fe0f}' => !prev.is_some_and(takes_presentation_selector),
        c => is_control(c) || is_invisible(c),
    }
}

/// C0 controls (ESC, BEL, backspace, newline, tab, ...), DEL and C1
/// controls, among them the one-byte CSI (U+009B) and OSC (U+009D).
fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}' | '\u{80}'..='\u{9f}')
}

/// A visible symbol an emoji or text presentation selector may follow.
fn takes_presentation_selector(p: char) -> bool {
    let symbol = if p.is_ascii() {
        matches!(p, '0'..='9' | '#' | '*')
    } else {
        !p.is_whitespace()
    };
    symbol && !is_unsafe(p, None) && !is_selector(p)
}

fn is_selector(c: char) -> bool {
    matches!(c, '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
}

/// Characters that show nothing, or rearrange what is shown: Unicode's
/// `Default_Ignorable_Code_Point` set (DerivedCoreProperties.txt, Unicode
/// 16; no crate in the tree carries it), plus the interlinear annotation
/// controls and the line and paragraph separators.
fn is_invisible(c: char) -> bool {
    matches!(c,
        // Soft hyphen, combining grapheme joiner, Arabic letter mark.
        '\u{ad}' | '\u{34f}' | '\u{61c}'
        // Hangul fillers: letters that draw nothing.
        | '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}'
        // Khmer inherent vowels.
        | '\u{17b4}' | '\u{17b5}'
        // Mongolian free variation selectors and vowel separator.
        | '\u{180b}'..='\u{180f}'
        // Zero width space, non-joiner, joiner, LRM, RLM; the bidi
        // embeddings and overrides (RLO is U+202E).
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        // Word joiner, invisible operators, bidi isolates, deprecated
        // format characters.
        | '\u{2060}'..='\u{206f}'
        // Variation selectors (see is_unsafe for the two emoji ones).
        | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}'
        // Zero width no-break space (BOM).
        | '\u{feff}'
        // Reserved ignorables and the interlinear annotation controls.
        | '\u{fff0}'..='\u{fffb}'
        // Shorthand format controls, musical beam and phrase controls.
        | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}'
        // Tag characters and the rest of the ignorable plane-14 block: able
        // to smuggle whole ASCII strings past a reader.
        | '\u{e0000}'..='\u{e0fff}'
        // Line and paragraph separators, which some renderers treat as
        // line breaks.
        | '\u{2028}' | '\u{2029}'
    )
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{0}'..='\u{1f}' | '\u{7f}' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `value` as pretty JSON in which every character [`escape`] would escape
/// is a `\uXXXX` escape: the document stays valid and means the same, but a
/// terminal shows it inert.
pub fn json_pretty<T: serde::Serialize>(value: &T) -> String {
    json_with(value, serde_json::ser::PrettyFormatter::new())
}

/// [`json_pretty`] on one line (JSON lines for `--watch`).
pub fn json_compact<T: serde::Serialize>(value: &T) -> String {
    json_with(value, serde_json::ser::CompactFormatter)
}

fn json_with<T: serde::Serialize, F: serde_json::ser::Formatter>(value: &T, f: F) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, InertJson(f));
    value.serialize(&mut ser).expect("reports serialize");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A JSON formatter that writes unsafe characters in strings as `\uXXXX`
/// (astral ones as a surrogate pair); everything else is `F`'s.
struct InertJson<F>(F);

macro_rules! delegate {
    ($($name:ident($($arg:ident: $t:ty),*);)*) => {$(
        fn $name<W: ?Sized + std::io::Write>(&mut self, w: &mut W $(, $arg: $t)*) -> std::io::Result<()> {
            self.0.$name(w $(, $arg)*)
        }
    )*};
}

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for InertJson<F> {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        begin_object_value();
        end_object_value();
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut done = 0;
        for (at, c) in unsafe_chars(fragment) {
            w.write_all(&fragment.as_bytes()[done..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{:04x}", unit)?;
            }
            done = at + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[done..])
    }
}

/// `value` as YAML in which every string holding a character [`escape`]
/// would escape is a double-quoted scalar with `\u`/`\U` escapes: valid
/// YAML that means the same, inert on a terminal. Documents without such
/// strings are exactly what serde_yaml_ng writes.
pub fn yaml<T: serde::Serialize>(value: &T) -> String {
    let plain = serde_yaml_ng::to_string(value).expect("reports serialize");
    if unsafe_chars(&plain).next().is_none() {
        return plain;
    }
    let mut doc = serde_yaml_ng::to_value(value).expect("reports serialize");
    // Each unsafe string becomes a placeholder the emitter writes as it is;
    // the placeholders are then replaced by their quoted, escaped form.
    let mut nonce = 0;
    while plain.contains(&format!("zq{nonce}x")) {
        nonce += 1;
    }
    let mut quoted = Vec::new();
    placeholders(&mut doc, &format!("zq{nonce}x"), &mut quoted);
    let emitted = serde_yaml_ng::to_string(&doc).expect("reports serialize");
    // One pass, linear however many strings were swapped: a placeholder
    // is a whole plain scalar, its number read to the last digit.
    let prefix = format!("zq{nonce}x");
    let mut out = String::with_capacity(emitted.len());
    let mut rest = emitted.as_str();
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at]);
        let after = &rest[at + prefix.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|i| quoted.get(i))
        {
            Some(text) => out.push_str(text),
            None => out.push_str(&rest[at..at + prefix.len() + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

fn placeholders(v: &mut serde_yaml_ng::Value, prefix: &str, quoted: &mut Vec<String>) {
    use serde_yaml_ng::Value;
    let mut swap = |s: &mut String| {
        if unsafe_chars(s).next().is_some() {
            quoted.push(yaml_quoted(s));
            *s = format!("{prefix}{}", quoted.len() - 1);
        }
    };
    match v {
        Value::String(s) => swap(s),
        Value::Sequence(items) => items
            .iter_mut()
            .for_each(|i| placeholders(i, prefix, quoted)),
        Value::Mapping(map) => {
            let entries = std::mem::take(map);
            for (mut k, mut val) in entries {
                placeholders(&mut k, prefix, quoted);
                placeholders(&mut val, prefix, quoted);
                map.insert(k, val);
            }
        }
        Value::Tagged(t) => placeholders(&mut t.value, prefix, quoted),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A YAML double-quoted scalar with every unsafe character escaped.
fn yaml_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    out.push('"');
    let mut prev = None;
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c, prev) && (c as u32) > 0xffff => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
            c if is_unsafe(c, prev) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
        prev = Some(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No character that a terminal would act on, or that would not show.
    fn assert_inert(s: &str) {
        if let Some((_, c)) = unsafe_chars(s).next() {
            panic!("unsafe character U+{:04X} left in {s:?}", c as u32);
        }
    }

    #[test]
    fn plain_text_is_borrowed_not_copied() {
        for s in [
            "",
            "web-6d4b9c7f8-x2k9p",
            "Back-off pulling image \"nginx:nope\"",
            r"C:\Program Files\app and a regex \d+\.\d+",
        ] {
            let out = escape(s);
            assert!(matches!(out, Cow::Borrowed(_)), "{s:?} was copied");
            assert!(std::ptr::eq(out.as_ptr(), s.as_ptr()));
            assert!(matches!(escape_multiline(s), Cow::Borrowed(_)));
        }
        let block = "line one\nline two\n";
        assert!(matches!(escape_multiline(block), Cow::Borrowed(b) if std::ptr::eq(b, block)));
    }

    #[test]
    fn ansi_colour_cursor_and_clear_screen_become_visible() {
        let payload =
            "\x1b[31mFAILED\x1b[0m\x1b[2J\x1b[H\x1b[1A\x1b[2KConverged\x07\x08\x1b]0;pwned\x07";
        let out = escape(payload);
        assert_inert(&out);
        assert_eq!(
            out,
            r"\x1b[31mFAILED\x1b[0m\x1b[2J\x1b[H\x1b[1A\x1b[2KConverged\x07\x08\x1b]0;pwned\x07"
        );
    }

    #[test]
    fn osc8_hyperlink_is_inert() {
        let link = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\";
        let out = escape(link);
        assert_inert(&out);
        assert_eq!(
            out,
            r"\x1b]8;;https://evil.example/\x1b\click me\x1b]8;;\x1b\"
        );
    }

    #[test]
    fn c1_controls_and_del_are_escaped() {
        // U+009B is a one-character CSI on terminals that honour C1.
        let out = escape("a\u{9b}31mb\u{9d}0;t\u{9c}c\u{7f}d\u{85}e\u{0}");
        assert_inert(&out);
        assert_eq!(out, r"a\u{9b}31mb\u{9d}0;t\u{9c}c\x7fd\u{85}e\x00");
    }

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(
            escape("Back-off\nrestarting\tfailed\r\ncontainer"),
            r"Back-off\nrestarting\tfailed\r\ncontainer"
        );
    }

    #[test]
    fn trojan_source_bidi_is_shown() {
        // The classic: an RLO/LRI pair that makes the reader see a different
        // order of characters than the one stored.
        let name = "access\u{202e}\u{2066}// check admin\u{2069}\u{2066}level";
        let out = escape(name);
        assert_inert(&out);
        assert_eq!(
            out,
            r"access\u{202e}\u{2066}// check admin\u{2069}\u{2066}level"
        );
        for c in [
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{2067}', '\u{2068}',
        ] {
            assert_eq!(escape(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
    }

    #[test]
    fn invisible_characters_in_names_are_shown() {
        // Two names that look identical on screen must not print the same.
        let look_alike = "web\u{200d}-frontend";
        assert_eq!(escape(look_alike), r"web\u{200d}-frontend");
        assert_ne!(escape(look_alike), escape("web-frontend"));
        for (c, shown) in [
            ('\u{200b}', r"\u{200b}"),
            ('\u{200c}', r"\u{200c}"),
            ('\u{2060}', r"\u{2060}"),
            ('\u{2064}', r"\u{2064}"),
            ('\u{feff}', r"\u{feff}"),
            ('\u{180e}', r"\u{180e}"),
            ('\u{ad}', r"\u{ad}"),
            ('\u{2028}', r"\u{2028}"),
            ('\u{e0041}', r"\u{e0041}"),
        ] {
            assert_eq!(escape(&format!("a{c}b")), format!("a{shown}b"));
        }
    }

    #[test]
    fn ordinary_unicode_is_untouched() {
        for s in [
            "café-naïve-Ärger",
            "日本語のポッド",
            "서비스",
            "مرحبا",
            "🚀 deployed ✅",
            // Variation selectors and skin tones are part of emoji, not
            // hidden text.
            "❤️👍🏽",
        ] {
            assert!(matches!(escape(s), Cow::Borrowed(_)), "{s:?} changed");
        }
        // The price of showing every zero-width joiner: a ZWJ emoji sequence
        // prints as its parts.
        assert_eq!(escape("👩\u{200d}💻"), r"👩\u{200d}💻");
    }

    #[test]
    fn multiline_keeps_newlines_and_escapes_the_rest() {
        let msg = "panic: boom\r\n\tat main.go:12\n\x1b[2Jdone\rspoof\u{202e}";
        let out = escape_multiline(msg);
        assert_eq!(
            out,
            "panic: boom\n\\tat main.go:12\n\\x1b[2Jdone\\rspoof\\u{202e}"
        );
        assert_eq!(out.lines().count(), 3);
        assert_inert(&out.replace('\n', ""));
    }

    #[test]
    fn a_real_escape_never_prints_as_the_text_that_spells_it() {
        // A real ESC and the four characters `\x1b` differ on screen.
        assert_eq!(escape("\x1b[31m"), "\\x1b[31m");
        assert_eq!(escape("\\x1b[31m"), "\\\\x1b[31m");
        assert_eq!(escape("a\\u{202e}b"), "a\\\\u{202e}b");
        assert_eq!(escape("line\\nnext"), "line\\\\nnext");
        // Backslashes that spell no escape are left as they are.
        assert!(matches!(escape("C:\\Program Files\\app"), Cow::Borrowed(_)));
        assert!(matches!(escape("a regex \\d+ and \\x"), Cow::Borrowed(_)));
    }

    /// Every range of Default_Ignorable_Code_Point, first and last, and the
    /// other invisible format characters.
    #[test]
    fn every_default_ignorable_range_is_escaped() {
        let ranges: &[(u32, u32, &str)] = &[
            (0xad, 0xad, "soft hyphen"),
            (0x34f, 0x34f, "combining grapheme joiner"),
            (0x61c, 0x61c, "Arabic letter mark"),
            (0x115f, 0x1160, "Hangul choseong and jungseong fillers"),
            (0x17b4, 0x17b5, "Khmer inherent vowels"),
            (
                0x180b,
                0x180f,
                "Mongolian variation selectors, vowel separator",
            ),
            (0x200b, 0x200f, "zero width space to RLM"),
            (0x202a, 0x202e, "bidi embeddings and overrides"),
            (0x2060, 0x206f, "word joiner to nominal digit shapes"),
            (0x3164, 0x3164, "Hangul filler"),
            (0xfe00, 0xfe0f, "variation selectors"),
            (0xfeff, 0xfeff, "zero width no-break space"),
            (0xffa0, 0xffa0, "halfwidth Hangul filler"),
            (0xfff0, 0xfff8, "reserved ignorables"),
            (0xfff9, 0xfffb, "interlinear annotation"),
            (0x1bca0, 0x1bca3, "shorthand format controls"),
            (0x1d173, 0x1d17a, "musical format controls"),
            (0xe0000, 0xe0fff, "tags and plane-14 ignorables"),
            (0xe0100, 0xe01ef, "variation selectors supplement"),
        ];
        for &(first, last, what) in ranges {
            for cp in [first, (first + last) / 2, last] {
                let c = char::from_u32(cp).unwrap();
                // At the start, and after a space: no base character to
                // belong to.
                for s in [format!("{c}x"), format!("a {c}b")] {
                    let out = escape(&s);
                    assert!(
                        out.contains(&format!("\\u{{{cp:x}}}")),
                        "{what}: U+{cp:04X} in {s:?} gave {out:?}"
                    );
                    assert_inert(&out);
                }
            }
        }
        // Neighbours that are visible stay as they are.
        for c in [
            '\u{115e}', '\u{1161}', '\u{3165}', '\u{ffa1}', '\u{fffc}', '\u{17b6}',
        ] {
            assert!(
                matches!(escape(&format!("a{c}")), Cow::Borrowed(_)),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn emoji_selectors_only_right_after_a_visible_character() {
        // VS16 after a heart is the red emoji heart, not hidden data.
        assert!(matches!(escape("\u{2764}\u{fe0f}"), Cow::Borrowed(_)));
        assert!(matches!(escape("\u{263a}\u{fe0e} ok"), Cow::Borrowed(_)));
        // A run of selectors smuggles bytes after an emoji.
        assert_eq!(
            escape("\u{1f600}\u{fe0f}\u{fe0f}\u{fe01}\u{e0143}"),
            "\u{1f600}\u{fe0f}\\u{fe0f}\\u{fe01}\\u{e0143}"
        );
        // After an escaped character, or at the start, it is shown too.
        assert_eq!(escape("\u{fe0f}a"), r"\u{fe0f}a");
        assert_eq!(escape("a\u{fe0f}"), r"a\u{fe0f}");
        assert!(matches!(escape("1\u{fe0f}\u{20e3}"), Cow::Borrowed(_)));
        assert_eq!(escape("\u{200b}\u{fe0f}"), r"\u{200b}\u{fe0f}");
    }

    /// What an attacker puts in a server error message or a gitVersion.
    const HOSTILE: &str = "v1.30\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;title\x07\x1b[2J\u{202e}gnp.exe\u{3164}\u{9b}31m\u{200b}";

    fn raw_controls(s: &str) -> Vec<char> {
        unsafe_chars(s)
            .map(|(_, c)| c)
            .filter(|&c| c != '\n')
            .collect()
    }

    #[test]
    fn json_carries_unsafe_characters_as_u_escapes_and_stays_valid() {
        let doc = serde_json::json!({"name": HOSTILE, HOSTILE: ["\u{1d173}", "❤\u{fe0f}", "line\nbreak"]});
        for out in [json_pretty(&doc), json_compact(&doc)] {
            assert_eq!(raw_controls(&out), Vec::<char>::new(), "{out}");
            let back: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(back, doc, "the same document");
            assert!(
                out.contains(r"\u202e") && out.contains(r"\ud834\udd73"),
                "{out}"
            );
            assert!(out.contains("\u{2764}\u{fe0f}"), "emoji kept: {out}");
        }
        assert!(!json_compact(&doc).contains('\n'));
    }

    #[test]
    fn yaml_carries_unsafe_characters_as_escapes_and_stays_valid() {
        #[derive(serde::Serialize)]
        struct Doc {
            name: String,
            labels: std::collections::BTreeMap<String, String>,
            items: Vec<String>,
        }
        let doc = Doc {
            name: HOSTILE.into(),
            labels: [(HOSTILE.to_string(), "a\"b\\c".to_string())].into(),
            items: vec!["plain".into(), "\u{e0041}\u{1d173}".into(), "zq0x1".into()],
        };
        let out = yaml(&doc);
        assert_eq!(raw_controls(&out), Vec::<char>::new(), "{out}");
        assert!(
            out.contains(r"\u202e") && out.contains(r"\U000e0041"),
            "{out}"
        );
        let back: serde_json::Value = serde_yaml_ng::from_str(&out).unwrap();
        assert_eq!(back, serde_json::to_value(&doc).unwrap(), "{out}");
        // Field order is the struct's, as without escapes.
        assert!(
            out.find("name:").unwrap() < out.find("items:").unwrap(),
            "{out}"
        );
        // A clean document is exactly what serde_yaml_ng writes.
        let clean = Doc {
            name: "web".into(),
            labels: Default::default(),
            items: vec!["❤\u{fe0f}".into()],
        };
        assert_eq!(yaml(&clean), serde_yaml_ng::to_string(&clean).unwrap());
    }
}
