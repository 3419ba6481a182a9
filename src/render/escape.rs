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
    let first = s.char_indices().find(|&(_, c)| match c {
        '\n' => !keep_newlines,
        // A CRLF pair is rewritten to a bare newline when lines are kept.
        '\r' if keep_newlines => true,
        c => is_unsafe(c),
    });
    let Some((start, _)) = first else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..start]);
    let mut chars = s[start..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\r' if keep_newlines && chars.peek() == Some(&'\n') => {}
            c if c == '\n' || c == '\r' || is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as it is.
fn is_unsafe(c: char) -> bool {
    matches!(c,
        // C0 controls (ESC, BEL, backspace, newline, tab, ...) and DEL.
        '\u{0}'..='\u{1f}' | '\u{7f}'
        // C1 controls, among them the one-byte CSI (U+009B) and OSC (U+009D).
        | '\u{80}'..='\u{9f}'
        // Bidi controls: Arabic letter mark, LRM/RLM, embeddings and
        // overrides, isolates.
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        // Zero-width and invisible: ZWSP, ZWNJ, ZWJ, word joiner and the
        // invisible operators, BOM / zero-width no-break space, Mongolian
        // vowel separator, soft hyphen.
        | '\u{200b}'..='\u{200d}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{180e}' | '\u{ad}'
        // Line and paragraph separators, which some renderers treat as
        // line breaks.
        | '\u{2028}' | '\u{2029}'
        // Tag characters: invisible, and able to smuggle whole ASCII
        // strings past a reader.
        | '\u{e0000}'..='\u{e007f}'
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

#[cfg(test)]
mod tests {
    use super::*;

    /// No character that a terminal would act on, or that would not show.
    fn assert_inert(s: &str) {
        if let Some(c) = s.chars().find(|&c| is_unsafe(c)) {
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
    fn escaped_text_is_stable() {
        // Escaping twice changes nothing more: the output is plain ASCII
        // escapes plus the original safe text.
        let once = escape("x\x1b[0m\u{200b}y\n").into_owned();
        assert!(matches!(escape(&once), Cow::Borrowed(_)));
    }
}
