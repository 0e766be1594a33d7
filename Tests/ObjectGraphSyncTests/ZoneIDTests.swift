import ObjectGraphSyncProtocol
import Testing

@Suite("A zone's identity: its owner and its name")
struct ZoneIDTests {
    @Test(
        "A zone's text reads back as the same zone, whatever its owner's name holds (a slash, spaces, accents, emoji)",
        arguments: [
            ZoneID("moods"), ZoneID("family", owner: "alice"), ZoneID("family", owner: "Zoë Ünal/β"),
            ZoneID("a.b_c-d", owner: "/"), ZoneID("trip", owner: "👩‍👩‍👧 e\u{301}")
        ])
    func textRoundTrips(_ zone: ZoneID) {
        #expect(ZoneID(parsing: zone.description) == zone)
    }

    @Test("A text with an empty owner or an empty name names no zone")
    func emptyPartsNameNoZone() {
        for text in ["", "/", "alice/", "/family"] {
            #expect(ZoneID(parsing: text) == nil, "\(text)")
        }
    }

    @Test("Zones sort the caller's own first, then by owner and name by Unicode scalars, so every platform agrees")
    func order() {
        let zones = [
            ZoneID("b", owner: "é"), ZoneID("a", owner: "e\u{301}"), ZoneID("z"), ZoneID("b", owner: "alice"),
            ZoneID("a", owner: "alice"), ZoneID("a")
        ]
        #expect(
            zones.sorted() == [
                ZoneID("a"), ZoneID("z"), ZoneID("a", owner: "alice"), ZoneID("b", owner: "alice"), ZoneID("a", owner: "e\u{301}"),
                ZoneID("b", owner: "é")
            ])
    }

    @Test("A zone named with its owner is the caller's own to the owner, and stays named so to anyone else")
    func relativeToAUser() {
        let zone = ZoneID("family", owner: "alice")
        #expect(zone.relative(to: "alice") == ZoneID("family"))
        #expect(zone.relative(to: "bob") == zone)
    }

    @Test("The zone routes' paths: a zone of the caller's own by name alone, any other with its owner")
    func paths() {
        #expect(Endpoint.invite.path(zone: ZoneID("family")) == "/v1/zones/family/invitations")
        #expect(Endpoint.invite.path(zone: ZoneID("family", owner: "alice")) == "/v1/users/alice/zones/family/invitations")
        #expect(Endpoint.memberRole.path(zone: ZoneID("f"), user: "bob") == "/v1/zones/f/members/bob")
        #expect(Endpoint.zones.path(zone: ZoneID("ignored", owner: "x")) == "/v1/zones")
    }
}
