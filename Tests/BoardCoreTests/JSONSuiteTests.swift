import BoardCore
import Testing

/// One input for the parser, named as in JSONTestSuite (github.com/nst/JSONTestSuite): `y_` must be
/// accepted, `n_` refused, `i_` is the implementation's choice (ours is written next to each).
struct JSONCase: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var testDescription: String { name }

    /// A case whose text is valid UTF-8.
    init(_ name: String, _ text: String) {
        self.name = name
        bytes = Array(text.utf8)
    }

    /// A case with raw bytes (invalid UTF-8, BOMs) between UTF-8 texts.
    init(_ name: String, _ before: String, _ raw: [UInt8], _ after: String = "") {
        self.name = name
        bytes = Array(before.utf8) + raw + Array(after.utf8)
    }
}

/// JSONTestSuite-style conformance of `JSON.parse`, written from the suite's categories: every
/// input a client can send passes through this parser.
@Suite struct JSONSuiteTests {
    static let accepted: [JSONCase] = [
        JSONCase("y_array_arraysWithSpaces", "[[]   ]"),
        JSONCase("y_array_empty", "[]"),
        JSONCase("y_array_empty-string", #"[""]"#),
        JSONCase("y_array_false", "[false]"),
        JSONCase("y_array_heterogeneous", #"[null, 1, "1", {}]"#),
        JSONCase("y_array_null", "[null]"),
        JSONCase("y_array_with_1_and_newline", "[1\n]"),
        JSONCase("y_array_with_leading_space", " [1]"),
        JSONCase("y_array_with_several_null", "[1,null,null,null,2]"),
        JSONCase("y_array_with_trailing_space", "[2] "),
        JSONCase("y_number", "[123e65]"),
        JSONCase("y_number_0e+1", "[0e+1]"),
        JSONCase("y_number_0e1", "[0e1]"),
        JSONCase("y_number_after_space", "[ 4]"),
        JSONCase("y_number_double_close_to_zero", "[-0.000000000000000000000000000000000000000000000000000000000001]"),
        JSONCase("y_number_int_with_exp", "[20e1]"),
        JSONCase("y_number_minus_zero", "[-0]"),
        JSONCase("y_number_negative_int", "[-123]"),
        JSONCase("y_number_negative_one", "[-1]"),
        JSONCase("y_number_real_capital_e", "[1E22]"),
        JSONCase("y_number_real_capital_e_neg_exp", "[1E-2]"),
        JSONCase("y_number_real_capital_e_pos_exp", "[1E+2]"),
        JSONCase("y_number_real_exponent", "[123e45]"),
        JSONCase("y_number_real_fraction_exponent", "[123.456e78]"),
        JSONCase("y_number_real_neg_exp", "[1e-2]"),
        JSONCase("y_number_real_pos_exponent", "[1e+2]"),
        JSONCase("y_number_simple_int", "[123]"),
        JSONCase("y_number_simple_real", "[123.456789]"),
        JSONCase("y_object", #"{"asd":"sdf", "dfg":"fgh"}"#),
        JSONCase("y_object_basic", #"{"asd":"sdf"}"#),
        JSONCase("y_object_duplicated_key", #"{"a":"b","a":"c"}"#),
        JSONCase("y_object_duplicated_key_and_value", #"{"a":"b","a":"b"}"#),
        JSONCase("y_object_empty", "{}"),
        JSONCase("y_object_empty_key", #"{"":0}"#),
        JSONCase("y_object_escaped_null_in_key", #"{"foo\u0000bar": 42}"#),
        JSONCase("y_object_extreme_numbers", #"{ "min": -1.0e+28, "max": 1.0e+28 }"#),
        JSONCase("y_object_simple", #"{"a":[]}"#),
        JSONCase("y_object_string_unicode", #"{"title":"\u041f\u043e\u043b\u0442\u043e\u0440\u0430"}"#),
        JSONCase("y_object_with_newlines", "{\n\"a\": \"b\"\n}"),
        JSONCase("y_string_1_2_3_bytes_UTF-8_sequences", #"["\u0060\u012a\u12AB"]"#),
        JSONCase("y_string_accepted_surrogate_pair", #"["\uD801\udc37"]"#),
        JSONCase("y_string_accepted_surrogate_pairs", #"["\ud83d\ude39\ud83d\udc8d"]"#),
        JSONCase("y_string_allowed_escapes", #"["\"\\\/\b\f\n\r\t"]"#),
        JSONCase("y_string_backslash_and_u_escaped_zero", #"["\\u0000"]"#),
        JSONCase("y_string_backslash_doublequotes", #"["\""]"#),
        JSONCase("y_string_comments", #"["a/*b*/c/*d//e"]"#),
        JSONCase("y_string_double_escape_a", #"["\\a"]"#),
        JSONCase("y_string_escaped_control_character", #"["\u0012"]"#),
        JSONCase("y_string_escaped_noncharacter", #"["\uFFFF"]"#),
        JSONCase("y_string_in_array_with_leading_space", #"[ "asd"]"#),
        JSONCase("y_string_last_surrogates_1_and_2", #"["\uDBFF\uDFFF"]"#),
        JSONCase("y_string_nbsp_uescaped", #"["new\u00A0line"]"#),
        JSONCase("y_string_nonCharacterInUTF-8_U+10FFFF", "[\"\u{10FFFF}\"]"),
        JSONCase("y_string_nonCharacterInUTF-8_U+FFFF", "[\"\u{FFFF}\"]"),
        JSONCase("y_string_null_escape", #"["\u0000"]"#),
        JSONCase("y_string_one-byte-utf-8", #"["\u002c"]"#),
        JSONCase("y_string_pi", "[\"π\"]"),
        JSONCase("y_string_reservedCharacterInUTF-8_U+1BFFF", "[\"\u{1BFFF}\"]"),
        JSONCase("y_string_space", #"" ""#),
        JSONCase("y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF", #"["\uD834\uDd1e"]"#),
        JSONCase("y_string_u+2028_line_sep", "[\"\u{2028}\"]"),
        JSONCase("y_string_u+2029_par_sep", "[\"\u{2029}\"]"),
        JSONCase("y_string_uEscape", #"["\u0061\u30af\u30EA\u30b9"]"#),
        JSONCase("y_string_uescaped_newline", #"["new\u000Aline"]"#),
        JSONCase("y_string_unescaped_char_delete", "[\"\u{7F}\"]"),
        JSONCase("y_string_unicodeEscapedBackslash", #"["\u005C"]"#),
        JSONCase("y_string_unicode_U+10FFFE_nonchar", #"["\uDBFF\uDFFE"]"#),
        JSONCase("y_string_unicode_U+200B_ZERO_WIDTH_SPACE", #"["\u200B"]"#),
        JSONCase("y_string_unicode_U+FDD0_nonchar", #"["\uFDD0"]"#),
        JSONCase("y_string_unicode_U+FFFE_nonchar", #"["\uFFFE"]"#),
        JSONCase("y_string_unicode_escaped_double_quote", #"["\u0022"]"#),
        JSONCase("y_string_utf8", "[\"€𝄞\"]"),
        JSONCase("y_structure_lonely_false", "false"),
        JSONCase("y_structure_lonely_int", "42"),
        JSONCase("y_structure_lonely_negative_real", "-0.1"),
        JSONCase("y_structure_lonely_null", "null"),
        JSONCase("y_structure_lonely_string", #""asd""#),
        JSONCase("y_structure_lonely_true", "true"),
        JSONCase("y_structure_string_empty", #""""#),
        JSONCase("y_structure_trailing_newline", "[\"a\"]\n"),
        JSONCase("y_structure_whitespace_array", " [] "),
        // Implementation-defined, accepted here: numbers out of a double's precision or below its
        // smallest value become the nearest double (0 for an underflow).
        JSONCase("i_number_double_huge_neg_exp", "[123.456e-789]"),
        JSONCase("i_number_real_underflow", "[123e-10000000]"),
        JSONCase("i_number_too_big_neg_int", "[-123123123123123123123123123123]"),
        JSONCase("i_number_too_big_pos_int", "[100000000000000000000]"),
        JSONCase("i_number_very_big_negative_int", "[-237462374673276894279832749832423479823246327846]"),
    ]

    static let refused: [JSONCase] = [
        JSONCase("n_array_1_true_without_comma", "[1 true]"),
        JSONCase("n_array_a_invalid_utf8", "[a", [0xE5], "]"),
        JSONCase("n_array_colon_instead_of_comma", #"["": 1]"#),
        JSONCase("n_array_comma_after_close", #"[""],"#),
        JSONCase("n_array_comma_and_number", "[,1]"),
        JSONCase("n_array_double_comma", "[1,,2]"),
        JSONCase("n_array_double_extra_comma", #"["x",,]"#),
        JSONCase("n_array_extra_close", #"["x"]]"#),
        JSONCase("n_array_extra_comma", #"["",]"#),
        JSONCase("n_array_incomplete", #"["x""#),
        JSONCase("n_array_incomplete_invalid_value", "[x"),
        JSONCase("n_array_inner_array_no_comma", "[3[4]]"),
        JSONCase("n_array_invalid_utf8", "[", [0xFF], "]"),
        JSONCase("n_array_items_separated_by_semicolon", "[1:2]"),
        JSONCase("n_array_just_comma", "[,]"),
        JSONCase("n_array_just_minus", "[-]"),
        JSONCase("n_array_missing_value", #"[   , ""]"#),
        JSONCase("n_array_newlines_unclosed", "[\"a\",\n4\n,1,"),
        JSONCase("n_array_number_and_comma", "[1,]"),
        JSONCase("n_array_number_and_several_commas", "[1,,]"),
        JSONCase("n_array_spaces_vertical_tab_formfeed", "[\"\u{0B}a\"\u{0C}]"),
        JSONCase("n_array_star_inside", "[*]"),
        JSONCase("n_array_unclosed", #"["""#),
        JSONCase("n_array_unclosed_trailing_comma", "[1,"),
        JSONCase("n_array_unclosed_with_object_inside", "[{}"),
        JSONCase("n_incomplete_false", "[fals]"),
        JSONCase("n_incomplete_null", "[nul]"),
        JSONCase("n_incomplete_true", "[tru]"),
        JSONCase("n_multidigit_number_then_00", "123\u{0}"),
        JSONCase("n_number_++", "[++1234]"),
        JSONCase("n_number_+1", "[+1]"),
        JSONCase("n_number_+Inf", "[+Inf]"),
        JSONCase("n_number_-01", "[-01]"),
        JSONCase("n_number_-1.0.", "[-1.0.]"),
        JSONCase("n_number_-2.", "[-2.]"),
        JSONCase("n_number_-NaN", "[-NaN]"),
        JSONCase("n_number_.-1", "[.-1]"),
        JSONCase("n_number_.2e-3", "[.2e-3]"),
        JSONCase("n_number_0.1.2", "[0.1.2]"),
        JSONCase("n_number_0.3e+", "[0.3e+]"),
        JSONCase("n_number_0.3e", "[0.3e]"),
        JSONCase("n_number_0.e1", "[0.e1]"),
        JSONCase("n_number_0_capital_E+", "[0E+]"),
        JSONCase("n_number_0e", "[0e]"),
        JSONCase("n_number_1.0e-", "[1.0e-]"),
        JSONCase("n_number_1_000", "[1 000.0]"),
        JSONCase("n_number_1eE2", "[1eE2]"),
        JSONCase("n_number_2.e+3", "[2.e+3]"),
        JSONCase("n_number_Inf", "[Inf]"),
        JSONCase("n_number_NaN", "[NaN]"),
        JSONCase("n_number_U+FF11_fullwidth_digit_one", "[１]"),
        JSONCase("n_number_expression", "[1+2]"),
        JSONCase("n_number_hex_1_digit", "[0x1]"),
        JSONCase("n_number_hex_2_digits", "[0x42]"),
        JSONCase("n_number_infinity", "[Infinity]"),
        JSONCase("n_number_invalid+-", "[0e+-1]"),
        JSONCase("n_number_invalid-negative-real", "[-123.123foo]"),
        JSONCase("n_number_invalid-utf-8-in-int", "[0", [0xE5], "]"),
        JSONCase("n_number_minus_infinity", "[-Infinity]"),
        JSONCase("n_number_minus_space_1", "[- 1]"),
        JSONCase("n_number_neg_int_starting_with_zero", "[-012]"),
        JSONCase("n_number_neg_real_without_int_part", "[-.123]"),
        JSONCase("n_number_real_garbage_after_e", "[1ea]"),
        JSONCase("n_number_real_without_fractional_part", "[1.]"),
        JSONCase("n_number_starting_with_dot", "[.123]"),
        JSONCase("n_number_with_alpha_char", "[1.8011670033376514H-308]"),
        JSONCase("n_number_with_leading_zero", "[012]"),
        JSONCase("n_object_bad_value", #"["x", truth]"#),
        JSONCase("n_object_bracket_key", #"{[: "x"}"#),
        JSONCase("n_object_comma_instead_of_colon", #"{"x", null}"#),
        JSONCase("n_object_double_colon", #"{"x"::"b"}"#),
        JSONCase("n_object_emoji", "{🇨🇭}"),
        JSONCase("n_object_garbage_at_end", #"{"a":"a" 123}"#),
        JSONCase("n_object_key_with_single_quotes", "{key: 'value'}"),
        JSONCase("n_object_lone_continuation_byte_in_key_and_trailing_comma", "{\"", [0xB9], "\":\"0\",}"),
        JSONCase("n_object_missing_colon", #"{"a" b}"#),
        JSONCase("n_object_missing_key", #"{:"b"}"#),
        JSONCase("n_object_missing_value", #"{"a":"#),
        JSONCase("n_object_no-colon", #"{"a""#),
        JSONCase("n_object_non_string_key", "{1:1}"),
        JSONCase("n_object_non_string_key_but_huge_number_instead", "{9999E9999:1}"),
        JSONCase("n_object_repeated_null_null", "{null:null,null:null}"),
        JSONCase("n_object_several_trailing_commas", #"{"id":0,,,,,}"#),
        JSONCase("n_object_single_quote", "{'a':0}"),
        JSONCase("n_object_trailing_comma", #"{"id":0,}"#),
        JSONCase("n_object_trailing_comment", #"{"a":"b"}/**/"#),
        JSONCase("n_object_trailing_comment_slash_open", #"{"a":"b"}//"#),
        JSONCase("n_object_two_commas_in_a_row", #"{"a":"b",,"c":"d"}"#),
        JSONCase("n_object_unquoted_key", #"{a: "b"}"#),
        JSONCase("n_object_unterminated-value", #"{"a":"a"#),
        JSONCase("n_object_with_single_string", #"{ "foo" : "bar", "a" }"#),
        JSONCase("n_object_with_trailing_garbage", #"{"a":"b"}#"#),
        JSONCase("n_single_space", " "),
        JSONCase("n_string_1_surrogate_then_escape", #"["\uD800\"]"#),
        JSONCase("n_string_1_surrogate_then_escape_u", #"["\uD800\u"]"#),
        JSONCase("n_string_1_surrogate_then_escape_u1", #"["\uD800\u1"]"#),
        JSONCase("n_string_1_surrogate_then_escape_u1x", #"["\uD800\u1x"]"#),
        JSONCase("n_string_accentuated_char_no_quotes", "[é]"),
        JSONCase("n_string_backslash_00", "[\"\\\u{0}\"]"),
        JSONCase("n_string_escape_x", #"["\x00"]"#),
        JSONCase("n_string_escaped_backslash_bad", #"["\\\"]"#),
        JSONCase("n_string_escaped_ctrl_char_tab", "[\"\\\t\"]"),
        JSONCase("n_string_escaped_emoji", "[\"\\🌀\"]"),
        JSONCase("n_string_incomplete_escape", #"["\"]"#),
        JSONCase("n_string_incomplete_escaped_character", #"["\u00A"]"#),
        JSONCase("n_string_incomplete_surrogate", #"["\uD834\uDd"]"#),
        JSONCase("n_string_incomplete_surrogate_escape_invalid", #"["\uD800\uD800\x"]"#),
        JSONCase("n_string_invalid-utf-8-in-escape", #"["\u"#, [0xE5], #""]"#),
        JSONCase("n_string_invalid_backslash_esc", #"["\a"]"#),
        JSONCase("n_string_invalid_unicode_escape", #"["\uqqqq"]"#),
        JSONCase("n_string_invalid_utf8_after_escape", #"["\"#, [0xE5], #""]"#),
        JSONCase("n_string_leading_uescaped_thinspace", #"[\u0020"asd"]"#),
        JSONCase("n_string_no_quotes_with_bad_escape", #"[\n]"#),
        JSONCase("n_string_single_doublequote", #"""#),
        JSONCase("n_string_single_quote", "['single quote']"),
        JSONCase("n_string_single_string_no_double_quotes", "abc"),
        JSONCase("n_string_start_escape_unclosed", #"["\"#),
        JSONCase("n_string_unescaped_ctrl_char", "[\"a\u{0}a\"]"),
        JSONCase("n_string_unescaped_newline", "[\"new\nline\"]"),
        JSONCase("n_string_unescaped_tab", "[\"\t\"]"),
        JSONCase("n_string_unicode_CapitalU", #""\UA66D""#),
        JSONCase("n_string_with_trailing_garbage", #"""x"#),
        JSONCase("n_structure_<.>", "<.>"),
        JSONCase("n_structure_<null>", "[<null>]"),
        JSONCase("n_structure_array_trailing_garbage", "[1]x"),
        JSONCase("n_structure_array_with_extra_array_close", "[1]]"),
        JSONCase("n_structure_array_with_unclosed_string", #"["asd]"#),
        JSONCase("n_structure_capitalized_True", "[True]"),
        JSONCase("n_structure_close_unopened_array", "1]"),
        JSONCase("n_structure_comma_instead_of_closing_brace", #"{"x": true,"#),
        JSONCase("n_structure_double_array", "[][]"),
        JSONCase("n_structure_end_array", "]"),
        JSONCase("n_structure_incomplete_UTF8_BOM", "", [0xEF, 0xBB], "{}"),
        JSONCase("n_structure_lone-invalid-utf-8", "", [0xE5]),
        JSONCase("n_structure_lone-open-bracket", "["),
        JSONCase("n_structure_no_data", ""),
        JSONCase("n_structure_null-byte-outside-string", "[\u{0}]"),
        JSONCase("n_structure_number_with_trailing_garbage", "2@"),
        JSONCase("n_structure_object_followed_by_closing_object", "{}}"),
        JSONCase("n_structure_object_unclosed_no_value", #"{"":"#),
        JSONCase("n_structure_object_with_comment", #"{"a":/*comment*/"b"}"#),
        JSONCase("n_structure_object_with_trailing_garbage", #"{"a": true} "x""#),
        JSONCase("n_structure_open_array_apostrophe", "['"),
        JSONCase("n_structure_open_array_comma", "[,"),
        JSONCase("n_structure_open_array_open_string", #"["a"#),
        JSONCase("n_structure_open_object", "{"),
        JSONCase("n_structure_open_object_close_array", "{]"),
        JSONCase("n_structure_open_object_open_array", "{["),
        JSONCase("n_structure_open_open", #"["\{["\{["\{["\{"#),
        JSONCase("n_structure_single_star", "*"),
        JSONCase("n_structure_trailing_#", #"{"a":"b"}#{}"#),
        JSONCase("n_structure_U+2060_word_joined", "[\u{2060}]"),
        JSONCase("n_structure_uescaped_LF_before_string", #"[\u000A""]"#),
        JSONCase("n_structure_unclosed_array_partial_null", "[ false, nul"),
        JSONCase("n_structure_unclosed_object", #"{"asd":"asd""#),
        JSONCase("n_structure_unicode-identifier", "å"),
        JSONCase("n_structure_whitespace_formfeed", "[\u{0C}]"),
        // Implementation-defined, refused here: numbers a double cannot hold (no infinities)...
        JSONCase(
            "i_number_huge_exp", "[0.4e00669999999999999999999999999999999999999999999999999999999999999969999999006]"),
        JSONCase("i_number_neg_int_huge_exp", "[-1e+9999]"),
        JSONCase("i_number_pos_double_huge_exp", "[1.5e+9999]"),
        JSONCase("i_number_real_neg_overflow", "[-123123e100000]"),
        JSONCase("i_number_real_pos_overflow", "[123123e100000]"),
        // ...lone or inverted surrogates (a Swift string cannot hold them) and invalid UTF-8...
        JSONCase("i_object_key_lone_2nd_surrogate", #"{"\uDFAA":0}"#),
        JSONCase("i_string_1st_surrogate_but_2nd_missing", #"["\uDADA"]"#),
        JSONCase("i_string_1st_valid_surrogate_2nd_invalid", #"["\uD888\u1234"]"#),
        JSONCase("i_string_incomplete_surrogate_and_escape_valid", #"["\uD800\n"]"#),
        JSONCase("i_string_incomplete_surrogate_pair", #"["\uDd1ea"]"#),
        JSONCase("i_string_incomplete_surrogates_escape_valid", #"["\uD800\uD800\n"]"#),
        JSONCase("i_string_invalid_lonely_surrogate", #"["\ud800"]"#),
        JSONCase("i_string_invalid_surrogate", #"["\ud800abc"]"#),
        JSONCase("i_string_inverted_surrogates_U+1D11E", #"["\uDd1e\uD834"]"#),
        JSONCase("i_string_lone_second_surrogate", #"["\uDFAA"]"#),
        JSONCase("i_string_UTF-8_invalid_sequence", "[\"日ш", [0xFA], "\"]"),
        JSONCase("i_string_UTF8_surrogate_U+D800", "[\"", [0xED, 0xA0, 0x80], "\"]"),
        JSONCase("i_string_invalid_utf-8", "[\"", [0xFF], "\"]"),
        JSONCase("i_string_iso_latin_1", "[\"", [0xE9], "\"]"),
        JSONCase("i_string_lone_utf8_continuation_byte", "[\"", [0x81], "\"]"),
        JSONCase("i_string_not_in_unicode_range", "[\"", [0xF4, 0xBF, 0xBF, 0xBF], "\"]"),
        JSONCase("i_string_overlong_sequence_2_bytes", "[\"", [0xC0, 0xAF], "\"]"),
        JSONCase("i_string_overlong_sequence_6_bytes", "[\"", [0xFC, 0x83, 0xBF, 0xBF, 0xBF, 0xBF], "\"]"),
        JSONCase("i_string_overlong_sequence_6_bytes_null", "[\"", [0xFC, 0x80, 0x80, 0x80, 0x80, 0x80], "\"]"),
        JSONCase("i_string_truncated-utf-8", "[\"", [0xE0, 0xFF], "\"]"),
        JSONCase("i_string_utf16BE_no_BOM", "", [0x00, 0x5B, 0x00, 0x22, 0x00, 0xE9, 0x00, 0x22, 0x00, 0x5D]),
        JSONCase(
            "i_string_UTF-16LE_with_BOM", "", [0xFF, 0xFE, 0x5B, 0x00, 0x22, 0x00, 0xE9, 0x00, 0x22, 0x00, 0x5D, 0x00]),
        // ...a byte-order mark (a WebSocket text frame is UTF-8; nothing needs one)...
        JSONCase("i_structure_UTF-8_BOM_empty_object", "", [0xEF, 0xBB, 0xBF], "{}"),
        JSONCase("n_structure_UTF8_BOM_no_data", "", [0xEF, 0xBB, 0xBF]),
        // ...and nesting deeper than `JSON.maximumDepth` (see the depth tests below).
        JSONCase(
            "i_structure_500_nested_arrays", String(repeating: "[", count: 500) + String(repeating: "]", count: 500)),
    ]

    @Test(arguments: accepted)
    func accepts(_ input: JSONCase) {
        #expect(throws: Never.self) { try JSON.parse(input.bytes) }
    }

    @Test(arguments: refused)
    func refuses(_ input: JSONCase) {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(input.bytes) }
    }

    @Test func acceptedTextsMeanWhatTheySay() throws {
        #expect(try JSON.parse(#"["\uD834\uDd1e"]"#) == .array([.string("𝄞")]))
        #expect(try JSON.parse(#"{"foo\u0000bar": 42}"#) == .object(["foo\u{0}bar": .number(42)]))
        #expect(try JSON.parse(#"["\"\\\/\b\f\n\r\t"]"#) == .array([.string("\"\\/\u{8}\u{C}\n\r\t")]))
        #expect(try JSON.parse("[1E22, -0, 1e-2]") == .array([.number(1e22), .number(-0.0), .number(0.01)]))
        #expect(try JSON.parse("[123e-10000000]") == .array([.number(0)]))
        #expect(try JSON.parse(#"{"a":"b","a":"c"}"#) == .object(["a": .string("c")]), "the last duplicate wins")
        #expect(try JSON.parse("[\"\u{7F}\"]") == .array([.string("\u{7F}")]), "DEL needs no escape")
    }

    @Test func refusalsSayWhereAndWhy() {
        #expect(refusal("[1.]") == "3: invalid number")
        #expect(refusal("[\"\n\"]") == "2: control character in string")
        #expect(refusal(#"["\ud800"]"#) == "8: unpaired surrogate")
        #expect(refusal(Array("[1] x".utf8)) == "4: unexpected data after the value")
        #expect(refusal([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]) == "0: unexpected character")
    }

    // MARK: Depth: deep nesting is refused, never a stack overflow

    /// `depth` arrays around `inner`.
    static func arrays(_ depth: Int, around inner: String = "") -> String {
        String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)
    }

    /// `depth` objects, each the member "a" of the one outside it, around `inner`.
    static func objects(_ depth: Int, around inner: String) -> String {
        String(repeating: #"{"a":"#, count: depth) + inner + String(repeating: "}", count: depth)
    }

    @Test func nestingUpToTheLimitIsAcceptedWithAValueInside() throws {
        let limit = JSON.maximumDepth
        #expect(limit == 64)
        _ = try JSON.parse(Self.arrays(limit, around: "1"))
        _ = try JSON.parse(Self.objects(limit, around: "1"))
        _ = try JSON.parse(Self.arrays(limit / 2, around: Self.objects(limit / 2, around: #""x""#)))
    }

    @Test func nestingPastTheLimitIsRefused() {
        let limit = JSON.maximumDepth
        let deeper = ParseErrorMatcher(reason: "nesting deeper than \(limit)")
        for text in [
            Self.arrays(limit + 1, around: "1"), Self.objects(limit + 1, around: "1"), Self.arrays(limit + 2),
            Self.arrays(limit, around: Self.objects(1, around: "[]")),
        ] {
            #expect(deeper.matches(text), "\(text.prefix(80))…")
        }
    }

    @Test(arguments: [10_000, 100_000])
    func veryDeepNestingIsRefusedWithoutOverflowingTheStack(_ depth: Int) {
        let deeper = ParseErrorMatcher(reason: "nesting deeper than \(JSON.maximumDepth)")
        #expect(deeper.matches(Self.arrays(depth)))
        #expect(deeper.matches(Self.objects(depth, around: "0")))
        #expect(
            deeper.matches(String(repeating: "[{\"a\":", count: depth)), "unclosed, like n_structure_open_array_object")
        #expect(deeper.matches(String(repeating: "[", count: depth)), "like n_structure_100000_opening_arrays")
    }

    @Test func aClientFrameNestedTooDeeplyIsBadJSON() {
        let frame = #"{"type":"ping","x":"# + Self.arrays(10_000) + "}"
        guard case .failure(let error) = ClientMessage.parse(Array(frame.utf8)) else {
            Issue.record("parsed")
            return
        }
        #expect(error.code == .badJSON)
        #expect(error.message.contains("nesting deeper than \(JSON.maximumDepth)"))
    }

    // MARK: Size: huge texts parse in one pass

    @Test func veryLongStringsAndArraysParse() throws {
        let long = String(repeating: "a", count: 1 << 20)
        #expect(try JSON.parse("\"\(long)\"").stringValue?.utf8.count == 1 << 20)
        let escaped = String(repeating: #"\u00e9"#, count: 100_000)
        #expect(try JSON.parse("\"\(escaped)\"").stringValue?.unicodeScalars.count == 100_000)
        let many = "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]"
        #expect(try JSON.parse(many).arrayValue?.count == 100_000)
        let keys = "{" + (0..<10_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        #expect(try JSON.parse(keys)["k9999"]?.intValue == 9_999)
        let digits = String(repeating: "9", count: 100_000)
        #expect(throws: JSON.ParseError.self, "a 100,000-digit number is out of range") { try JSON.parse(digits) }
    }
}

/// Where and why `JSON.parse` refuses `bytes` (`offset: reason`); nil when it accepts them.
func refusal(_ bytes: [UInt8]) -> String? {
    do {
        _ = try JSON.parse(bytes)
        return nil
    } catch {
        return "\(error.offset): \(error.reason)"
    }
}

/// Where and why `JSON.parse` refuses `text` (`offset: reason`); nil when it accepts it.
func refusal(_ text: String) -> String? { refusal(Array(text.utf8)) }

/// Expects a parse to fail with exactly this reason.
struct ParseErrorMatcher {
    var reason: String

    func matches(_ text: String) -> Bool {
        do {
            _ = try JSON.parse(text)
            return false
        } catch {
            return error.reason == reason
        }
    }
}
