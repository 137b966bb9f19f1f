import Testing

@Suite("The checks' own mention finder")
struct MentionFormsTests {
    @Test(
        "Each network's mention forms are found; e-mail addresses and a lone @ are not",
        arguments: [
            ("@taro おはよう", ["taro"]),
            ("おはよう＠Jiro_2", ["jiro_2"]),
            ("RT @saburo: それな", ["saburo"]),
            ("cc @bob@example.social と @carol@mk.example.jp", ["bob@example.social", "carol@mk.example.jp"]),
            ("@alice.bsky.social さんへ", ["alice.bsky.social"]),
            ("mail me: taro@example.com", []),
            ("@ だけ、@@ も", []),
            ("(@echo_bot)", ["echo_bot"]),
        ])
    func forms(_ text: String, _ expected: [String]) {
        #expect(MentionForms.names(in: text) == Set(expected), "\(text)")
    }
}
