-- SPDX-License-Identifier: MIT
--
-- snps.lua - Wireshark dissector for SNPS, the sDDS wire protocol.
--
-- OVERVIEW
-- One SNPS frame is one UDP datagram (shared/docs/snps-wire.md §1): a
-- version byte, a submessage count, and that many submessages back to back
-- (§3, §4). The walk below follows lib/snps/src/decoder.c step by step so
-- that Wireshark and sddsd agree on every frame: the same lengths (§4.2),
-- the same context rules (DOMAIN and TOPIC set the context, SEQNR and
-- ADDRESS apply to the next DATA, §4.7), an extended ACK/NACK marker and its
-- SEQNR_* counted as two submessages, and the same reasons for giving up.
--
-- DATA carries no usable length: its nibble is the size modulo 16 (§4.5).
-- A receiver must know the topic's sample size. The dissector takes it, in
-- this order, from the "Topic sizes" preference, from the rest of the
-- datagram when the DATA is the frame's last submessage (real nodes send one
-- sample per frame), from the builtin topic table (§10.1), and last from the
-- nibble (the reference receiver's skip rule, right only up to 15 bytes).
-- Samples on builtin ids 1..7 in domain 1 whose size matches the builtin's
-- are decoded field by field; the probes of the captures use those ids for
-- user topics, so a size mismatch shows the sample as raw bytes.
--
-- The same walk runs without a tree for the heuristic dissector: a UDP
-- datagram on any port is taken as SNPS only when its header is valid, its
-- first submessage is DOMAIN or TOPIC (as every real sender writes it) and
-- every announced submessage parses with no byte left over.
--
-- Errors: a frame that breaks the protocol gets an expert info at the byte
-- where the walk stopped, and the rest is shown as undecoded bytes; nothing
-- a datagram contains can raise a Lua error (the walk is also run under
-- pcall, which turns a bug into an expert info instead of a Lua error).
-- State: none across packets. Preferences are read on every packet.

local snps = Proto("snps", "sDDS SNPS")

local VERSION = 0x01
local DEFAULT_PORT = 23234
local MCAST_PORT_OFFSET = 20
local SECURE_OVERHEAD = 24 -- §12.6: IV(12) + MAC(12)
local BUILTIN_DOMAIN = 1

-- §4.2: names of the basic types (low nibble) and extended types (high
-- nibble of a 0x?F header byte).
local basic_names = {
	[0x0] = "DOMAIN", [0x1] = "TOPIC", [0x2] = "DATA", [0x3] = "SEQNR",
	[0x4] = "TS", [0x5] = "ACKSEQ", [0x6] = "NACKSEQ", [0x7] = "STATUS",
	[0x8] = "ADDRESS", [0x9] = "unassigned 9", [0xA] = "unassigned A",
	[0xB] = "unassigned B", [0xC] = "unassigned C", [0xD] = "unassigned D",
	[0xE] = "unassigned E", [0xF] = "extended",
}
local ext_names = {
	[0x0] = "ext ACK", [0x1] = "ext NACK", [0x2] = "ext SEP", [0x3] = "ext TSDDS",
	[0x4] = "ext ADDR16", [0x5] = "ext CRC", [0x6] = "ext TSUSEC", [0x7] = "ext TSMSEC",
	[0x8] = "ext SEQNR_SMALL", [0x9] = "ext SEQNR_BIG", [0xA] = "ext SEQNR_HUGE",
	[0xB] = "ext TOPIC", [0xC] = "ext FRAG", [0xD] = "ext FRAGNACK",
	[0xE] = "ext SECURE", [0xF] = "ext EXTENDED",
}
local BT = { DOMAIN = 0, TOPIC = 1, DATA = 2, SEQNR = 3, TS = 4, ACKSEQ = 5, NACKSEQ = 6,
	STATUS = 7, ADDRESS = 8, EXT = 0xF }
local XT = { ACK = 0, NACK = 1, TSDDS = 3, SEQNR_SMALL = 8, SEQNR_BIG = 9, SEQNR_HUGE = 0xA,
	TOPIC = 0xB, SECURE = 0xE }
-- Payload bytes of SEQNR_SMALL/BIG/HUGE (§11.2).
local ext_seqnr_size = { [XT.SEQNR_SMALL] = 1, [XT.SEQNR_BIG] = 2, [XT.SEQNR_HUGE] = 4 }

-- §10.1: the builtin topics, domain 1, ids 1..7, and their sample sizes.
local builtin_names = {
	[1] = "DCPSParticipant", [2] = "DCPSTopic", [3] = "DCPSPublication",
	[4] = "DCPSSubscription", [5] = "ParticipantStatelessMessage",
	[6] = "DCPSLocation", [7] = "DCPSManagement",
}
local builtin_sizes = { [1] = 2, [2] = 28, [3] = 6, [4] = 6, [5] = 234, [6] = 18, [7] = 68 }

local cast_names = { [0] = "unicast", [1] = "multicast", [2] = "broadcast" }
local family_names = { [0] = "IPv4", [1] = "IPv6" }
local subscription_states = { [0] = "cancelled", [1] = "active", [2] = "paused" }

-- Fields. Every abbreviation starts with "snps." so that display filters
-- such as `snps.topic == 0xA` or `snps.seqnr.bits == 16` work.
local f = snps.fields
f.version = ProtoField.uint8("snps.version", "Version", base.DEC)
f.count = ProtoField.uint8("snps.count", "Submessage count", base.DEC)
f.submsg = ProtoField.none("snps.submsg", "Submessage")
f.hdr = ProtoField.uint8("snps.submsg.hdr", "Header byte", base.HEX)
f.type = ProtoField.uint8("snps.submsg.type", "Type", base.HEX, basic_names, 0x0F)
f.value = ProtoField.uint8("snps.submsg.value", "Value", base.DEC, nil, 0xF0)
f.ext = ProtoField.uint8("snps.submsg.ext", "Extended type", base.HEX, ext_names, 0xF0)
f.domain = ProtoField.uint8("snps.domain", "Domain", base.DEC)
f.topic = ProtoField.uint16("snps.topic", "Topic", base.DEC)
f.topic_ext = ProtoField.bool("snps.topic.extended", "Extended topic id")
f.data_len = ProtoField.uint8("snps.data.len", "Length nibble", base.DEC)
f.data_size = ProtoField.uint16("snps.data.size", "Sample size", base.DEC)
f.data_size_src = ProtoField.string("snps.data.size_from", "Sample size from")
f.data_domain = ProtoField.uint8("snps.data.domain", "Sample domain", base.DEC)
f.data_topic = ProtoField.uint16("snps.data.topic", "Sample topic", base.DEC)
f.data_seqnr = ProtoField.uint32("snps.data.seqnr", "Sample sequence number", base.DEC)
f.sample = ProtoField.bytes("snps.sample", "Sample")
f.seqnr = ProtoField.uint32("snps.seqnr", "Sequence number", base.DEC)
f.seqnr_bits = ProtoField.uint8("snps.seqnr.bits", "Sequence number width (bits)", base.DEC)
f.ack = ProtoField.uint32("snps.ack", "Acknowledged sequence number", base.DEC)
f.nack = ProtoField.uint32("snps.nack", "Negatively acknowledged sequence number", base.DEC)
f.ack_bits = ProtoField.uint8("snps.ack.bits", "ACK/NACK sequence number width (bits)", base.DEC)
f.ts = ProtoField.uint32("snps.ts", "Simple timestamp (20 bits)", base.DEC)
f.tsdds_sec = ProtoField.uint32("snps.tsdds.sec", "TSDDS seconds", base.DEC)
f.tsdds_nsec = ProtoField.uint32("snps.tsdds.nsec", "TSDDS nanoseconds", base.DEC)
f.status = ProtoField.uint8("snps.status", "Status", base.HEX)
f.status_packs = ProtoField.bool("snps.status.packs", "Sender packs several samples per frame")
f.addr_len = ProtoField.uint8("snps.addr.len", "Address bytes", base.DEC)
f.addr_cast = ProtoField.uint8("snps.addr.cast", "Cast", base.DEC, cast_names, 0x0F)
f.addr_family = ProtoField.uint8("snps.addr.family", "Family", base.DEC, family_names, 0xF0)
f.addr_compressed = ProtoField.bytes("snps.addr.compressed", "Compressed group")
f.addr_group = ProtoField.ipv6("snps.addr.group", "Group")
f.secure_len = ProtoField.uint8("snps.secure.len", "Blob length", base.DEC)
f.secure_blob = ProtoField.bytes("snps.secure.blob", "Blob (as on the wire)")
f.secure_iv = ProtoField.bytes("snps.secure.iv", "IV")
f.secure_ct = ProtoField.bytes("snps.secure.ciphertext", "Ciphertext")
f.secure_mac = ProtoField.bytes("snps.secure.mac", "MAC")
f.skipped = ProtoField.bytes("snps.skipped", "Skipped payload")
f.undecoded = ProtoField.bytes("snps.undecoded", "Undecoded bytes")
f.trailing = ProtoField.bytes("snps.trailing", "Bytes after the last counted submessage")
-- Builtin samples (§10.1, §12.4).
f.participant_key = ProtoField.uint16("snps.participant.key", "Participant key (node id)", base.HEX)
f.dcpstopic_key = ProtoField.uint16("snps.dcpstopic.key", "Key", base.HEX)
f.dcpstopic_name = ProtoField.string("snps.dcpstopic.name", "Name")
f.endpoint_key = ProtoField.uint16("snps.endpoint.key", "Key (writer or reader index)", base.HEX)
f.endpoint_participant = ProtoField.uint16("snps.endpoint.participant", "Participant", base.HEX)
f.endpoint_topic = ProtoField.uint16("snps.endpoint.topic_id", "Topic id", base.DEC)
f.pub = ProtoField.none("snps.publication", "DCPSPublication")
f.sub = ProtoField.none("snps.subscription", "DCPSSubscription")
f.loc_key = ProtoField.uint16("snps.location.key", "Key", base.HEX)
f.loc_device = ProtoField.uint16("snps.location.device", "Device", base.HEX)
f.loc_x = ProtoField.uint16("snps.location.x", "x", base.DEC)
f.loc_y = ProtoField.uint16("snps.location.y", "y", base.DEC)
f.loc_z = ProtoField.uint16("snps.location.z", "z", base.DEC)
f.loc_width = ProtoField.uint16("snps.location.width", "Width", base.DEC)
f.loc_length = ProtoField.uint16("snps.location.length", "Length", base.DEC)
f.loc_expiration = ProtoField.int16("snps.location.expiration", "Expiration", base.DEC)
f.loc_age = ProtoField.int16("snps.location.age", "Age (ms)", base.DEC)
f.psm_msgid = ProtoField.uint16("snps.psm.msgid", "Message id", base.DEC)
f.psm_key = ProtoField.uint16("snps.psm.key", "Key (node id)", base.HEX)
f.psm_class = ProtoField.string("snps.psm.message_class_id", "Message class id")
f.psm_class_id = ProtoField.string("snps.psm.class_id", "Data class id")
f.psm_prop = ProtoField.none("snps.psm.prop", "Property")
f.psm_prop_key = ProtoField.string("snps.psm.prop.key", "Property key")
f.psm_prop_value = ProtoField.bytes("snps.psm.prop.value", "Property value")
f.mgmt_key = ProtoField.uint16("snps.mgmt.key", "Key (uninitialised by senders)", base.HEX)
f.mgmt_participant = ProtoField.uint16("snps.mgmt.participant", "Participant (0: all)", base.HEX)
f.mgmt_mkey = ProtoField.string("snps.mgmt.mkey", "Command")
f.mgmt_mvalue = ProtoField.bytes("snps.mgmt.mvalue", "Arguments")
f.mgmt_topic = ProtoField.uint8("snps.mgmt.topic", "Topic id", base.DEC)
f.mgmt_subscriber = ProtoField.uint16("snps.mgmt.subscriber", "Subscriber", base.HEX)
f.mgmt_state = ProtoField.uint8("snps.mgmt.state", "State", base.DEC, subscription_states)
f.mgmt_expr_len = ProtoField.uint8("snps.mgmt.expr_len", "Expression length", base.DEC)
f.mgmt_expr = ProtoField.string("snps.mgmt.expression", "Filter expression")

-- Expert infos: one per reason of lib/snps (enum snps_reason) plus the notes
-- the dissector adds where it had to guess.
local e = {
	short = ProtoExpert.new("snps.short_header", "Datagram shorter than the 2-byte frame header",
		expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("snps.bad_version", "Frame version is not 1",
		expert.group.MALFORMED, expert.severity.ERROR),
	count_high = ProtoExpert.new("snps.count_high",
		"Datagram ends before the announced number of submessages",
		expert.group.MALFORMED, expert.severity.ERROR),
	count_low = ProtoExpert.new("snps.count_low",
		"Bytes left after the announced number of submessages (receivers ignore them)",
		expert.group.PROTOCOL, expert.severity.WARN),
	truncated = ProtoExpert.new("snps.truncated", "Submessage runs past the end of the datagram",
		expert.group.MALFORMED, expert.severity.ERROR),
	unknown_ext = ProtoExpert.new("snps.unknown_ext",
		"Extended submessage type with no defined length: real receivers desynchronise here",
		expert.group.MALFORMED, expert.severity.ERROR),
	no_topic = ProtoExpert.new("snps.no_topic", "DATA, SECURE, SEQNR, ACK or NACK before any TOPIC",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_address = ProtoExpert.new("snps.bad_address",
		"ADDRESS with an unknown cast or family or a wrong length",
		expert.group.MALFORMED, expert.severity.ERROR),
	ack_no_seqnr = ProtoExpert.new("snps.ack_no_seqnr",
		"Extended ACK or NACK marker without a following SEQNR_SMALL/BIG/HUGE",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_secure = ProtoExpert.new("snps.bad_secure", "SECURE submessage shorter than its IV and MAC",
		expert.group.MALFORMED, expert.severity.ERROR),
	nibble = ProtoExpert.new("snps.data.nibble_mismatch",
		"DATA length nibble disagrees with the sample size modulo 16",
		expert.group.PROTOCOL, expert.severity.WARN),
	size_guess = ProtoExpert.new("snps.data.size_unknown",
		"Sample size unknown: the length nibble was used (add the topic to the Topic sizes preference)",
		expert.group.UNDECODED, expert.severity.NOTE),
	builtin_size = ProtoExpert.new("snps.data.not_builtin",
		"Builtin topic id, but the sample size is not the builtin's: shown as a user sample",
		expert.group.PROTOCOL, expert.severity.NOTE),
	reserved = ProtoExpert.new("snps.reserved", "Reserved or unassigned submessage type: receivers skip it",
		expert.group.PROTOCOL, expert.severity.NOTE),
	internal = ProtoExpert.new("snps.internal", "SNPS dissector internal error",
		expert.group.MALFORMED, expert.severity.ERROR),
}
snps.experts = {}
for _, v in pairs(e) do
	table.insert(snps.experts, v)
end

snps.prefs.port = Pref.uint("Base UDP port", DEFAULT_PORT,
	"Unicast port P of the sDDS nodes (the project attribute `port`); multicast uses P+20")
snps.prefs.topics = Pref.string("Topic sizes", "",
	"Sample sizes of user topics, as [DOMAIN:]TOPIC=SIZE separated by commas or spaces, "
	.. "e.g. \"1:10=4, 11=37\" (ids in decimal, or hex with 0x). Without a domain the entry "
	.. "matches the topic id in every domain, as real receivers do (§4.4).")
snps.prefs.swapped = Pref.bool("Little-endian integers", false,
	"The nodes were built with endian=\"big\" on a little-endian CPU (§2): multi-byte "
	.. "integers are little-endian and the SECURE blob is not reversed")
snps.prefs.builtins = Pref.bool("Decode builtin topics", true,
	"Decode samples on topic ids 1..7 in domain 1 as the builtin topics of §10.1 when their size "
	.. "matches (turn off for captures whose user topics use those ids)")
snps.prefs.heuristic = Pref.bool("Heuristic dissector", true,
	"Try SNPS on UDP datagrams of other ports (strict: the whole frame must parse)")

-- A stand-in for a tree when the walk runs for the heuristic: every method
-- returns the stand-in itself, so the walk is written once.
local null_tree = {}
setmetatable(null_tree, { __index = function()
	return function(self)
		return self
	end
end })

-- Parse the "Topic sizes" preference into a list of {domain|nil, topic, size}.
local topics_cache_text, topics_cache = nil, {}
local function topic_table()
	local text = snps.prefs.topics or ""
	if text == topics_cache_text then
		return topics_cache
	end
	local t = {}
	for entry in string.gmatch(text, "[^,%s]+") do
		local d, id, size = string.match(entry, "^(%w+):(%w+)=(%d+)$")
		if not d then
			id, size = string.match(entry, "^(%w+)=(%d+)$")
		end
		local dn = d and tonumber(d)
		local idn = id and tonumber(id)
		local sn = size and tonumber(size)
		if idn and sn and (d == nil or dn) then
			table.insert(t, { domain = dn, topic = idn, size = sn })
		end
	end
	topics_cache_text, topics_cache = text, t
	return t
end

local function table_size(domain, topic)
	for _, ent in ipairs(topic_table()) do
		if ent.topic == topic and (ent.domain == nil or ent.domain == domain) then
			return ent.size
		end
	end
	return nil
end

-- Read an unsigned integer of the range in the configured byte order.
local function uint(range, swapped)
	if swapped then
		return range:le_uint()
	end
	return range:uint()
end

-- Add an integer field in the configured byte order.
local function add_int(tree, field, range, swapped)
	if swapped then
		return tree:add_le(field, range)
	end
	return tree:add(field, range)
end

-- Text of a NUL-padded slot: up to the first NUL, printable ASCII only.
local function slot_text(range)
	local s = range:raw()
	local nul = string.find(s, "\0", 1, true)
	if nul then
		s = string.sub(s, 1, nul - 1)
	end
	return (string.gsub(s, "[^\32-\126]", "."))
end

-- §5: expand 6 compressed bytes to ff<b0>::<b1..b5> as an Address.
local function expand_group(range)
	local b = {}
	for i = 0, 5 do
		b[i] = range:range(i, 1):uint()
	end
	return Address.ipv6(string.format("ff%02x:0:0:0:0:%x:%x:%x", b[0], b[1], b[2] * 256 + b[3], b[4] * 256 + b[5]))
end

local builtin_decoders = {}

builtin_decoders[1] = function(tree, r, sw, ctx)
	local key = uint(r:range(0, 2), sw)
	add_int(tree, f.participant_key, r:range(0, 2), sw)
	if ctx.addr then
		tree:add(r, "Advertised address: " .. ctx.addr):set_generated()
	end
	return string.format("Participant 0x%04x", key)
end

builtin_decoders[2] = function(tree, r, sw)
	add_int(tree, f.dcpstopic_key, r:range(0, 2), sw)
	tree:add(f.dcpstopic_name, r:range(2, 26), slot_text(r:range(2, 26)))
	return "DCPSTopic " .. slot_text(r:range(2, 26))
end

local function endpoint(tree, r, sw, ctx, field, label)
	local st = tree:add(field, r)
	add_int(st, f.endpoint_key, r:range(0, 2), sw)
	add_int(st, f.endpoint_participant, r:range(2, 2), sw)
	add_int(st, f.endpoint_topic, r:range(4, 2), sw)
	if ctx.addr then
		st:add(r, "Advertised address: " .. ctx.addr):set_generated()
	end
	local s = string.format("%s {key 0x%04x, participant 0x%04x, topic %d}", label,
		uint(r:range(0, 2), sw), uint(r:range(2, 2), sw), uint(r:range(4, 2), sw))
	st:set_text(s)
	return s
end

builtin_decoders[3] = function(tree, r, sw, ctx)
	return endpoint(tree, r, sw, ctx, f.pub, "Publication")
end

builtin_decoders[4] = function(tree, r, sw, ctx)
	return endpoint(tree, r, sw, ctx, f.sub, "Subscription")
end

builtin_decoders[5] = function(tree, r, sw)
	add_int(tree, f.psm_msgid, r:range(0, 2), sw)
	add_int(tree, f.psm_key, r:range(2, 2), sw)
	tree:add(f.psm_class, r:range(4, 16), slot_text(r:range(4, 16)))
	tree:add(f.psm_class_id, r:range(20, 16), slot_text(r:range(20, 16)))
	for i = 0, 2 do
		local pr = r:range(36 + 66 * i, 66)
		local key = slot_text(pr:range(0, 16))
		local pt = tree:add(f.psm_prop, pr)
		pt:set_text("Property: " .. key)
		pt:add(f.psm_prop_key, pr:range(0, 16), key)
		pt:add(f.psm_prop_value, pr:range(16, 50))
	end
	return "StatelessMessage " .. slot_text(r:range(4, 16)) .. " " .. slot_text(r:range(20, 16))
end

builtin_decoders[6] = function(tree, r, sw)
	local names = { f.loc_key, f.loc_device, f.loc_x, f.loc_y, f.loc_z, f.loc_width, f.loc_length,
		f.loc_expiration, f.loc_age }
	for i, field in ipairs(names) do
		add_int(tree, field, r:range(2 * (i - 1), 2), sw)
	end
	return string.format("Location device 0x%04x (%d, %d, %d)", uint(r:range(2, 2), sw),
		uint(r:range(4, 2), sw), uint(r:range(6, 2), sw), uint(r:range(8, 2), sw))
end

builtin_decoders[7] = function(tree, r, sw)
	local cmd = slot_text(r:range(4, 32))
	local v = r:range(36, 32)
	add_int(tree, f.mgmt_key, r:range(0, 2), sw)
	add_int(tree, f.mgmt_participant, r:range(2, 2), sw)
	tree:add(f.mgmt_mkey, r:range(4, 32), cmd)
	local vt = tree:add(f.mgmt_mvalue, v)
	-- §10.1: the argument layout depends on the command.
	if cmd == "set_subscription_state" then
		vt:add(f.mgmt_topic, v:range(0, 1))
		add_int(vt, f.mgmt_subscriber, v:range(1, 2), sw)
		vt:add(f.mgmt_state, v:range(3, 1))
	elseif cmd == "request_filter_expression" then
		vt:add(f.mgmt_topic, v:range(0, 1))
	elseif cmd == "send_filter_expression" then
		local n = v:range(3, 1):uint()
		vt:add(f.mgmt_topic, v:range(0, 1))
		add_int(vt, f.mgmt_subscriber, v:range(1, 2), sw)
		vt:add(f.mgmt_expr_len, v:range(3, 1))
		if n > 28 then
			n = 28
		end
		if n > 0 then
			vt:add(f.mgmt_expr, v:range(4, n), slot_text(v:range(4, n)))
		end
	end
	return "Management " .. cmd
end

-- Reverse the bytes of a range into a new ByteArray (§12.6).
local function reversed(range)
	local ba = range:bytes()
	local n = ba:len()
	local out = ByteArray.new()
	out:set_size(n)
	for i = 0, n - 1 do
		out:set_index(i, ba:get_index(n - 1 - i))
	end
	return out
end

-- The walk. Returns false when it stopped at a protocol error or found
-- bytes after the counted submessages, true otherwise (notes and a length
-- nibble that disagrees do not count). Appends one summary per submessage to info (for the Info
-- column).
local function walk(tvb, pinfo, tree, info)
	local len = tvb:len()
	local sw = snps.prefs.swapped

	-- Mark where the walk stopped; the bytes from there on stay undecoded.
	local function fail(item, exp, pos, text)
		if pos < len then
			item = tree:add(f.undecoded, tvb:range(pos))
		end
		if text then
			item:add_proto_expert_info(exp, text)
		else
			item:add_proto_expert_info(exp)
		end
		return false
	end

	if len < 2 then
		return fail(tree, e.short, 0)
	end
	tree:add(f.version, tvb:range(0, 1))
	if tvb:range(0, 1):uint() ~= VERSION then
		return fail(tree, e.version, 0, string.format("Frame version is %d, not 1", tvb:range(0, 1):uint()))
	end
	local count = tvb:range(1, 1):uint()
	tree:add(f.count, tvb:range(1, 1))

	local pos, done = 2, 0
	local domain, topic, has_topic = 0, 0, false
	local seqnr, seqnr_bits = nil, nil
	local addr = nil
	local ok = true

	while done < count do
		if pos >= len then
			return fail(tree, e.count_high, pos,
				string.format("Datagram ends after %d of %d submessages", done, count))
		end
		local hdr = tvb:range(pos, 1):uint()
		local avail = len - pos
		local lo, hi = hdr % 16, math.floor(hdr / 16)
		local wire, used = 1, 1
		local st = tree:add(f.submsg, tvb:range(pos, 1))
		st:add(f.hdr, tvb:range(pos, 1))
		st:add(f.type, tvb:range(pos, 1))
		local name = lo == BT.EXT and ext_names[hi] or basic_names[lo]
		-- summary goes to the Info column, label (if set) to the tree.
		local summary, label = name, nil
		st:set_text(name)

		local function need_topic()
			if not has_topic then
				fail(st, e.no_topic, pos)
				return false
			end
			return true
		end
		local function need(n)
			if avail < n then
				fail(st, e.truncated, pos, string.format("%s needs %d bytes, %d left", name, n, avail))
				return false
			end
			return true
		end

		if lo ~= BT.EXT then
			st:add(f.value, tvb:range(pos, 1))
		else
			st:add(f.ext, tvb:range(pos, 1))
		end

		if lo == BT.DOMAIN then
			domain = hi
			st:add(f.domain, tvb:range(pos, 1), hi)
			summary = "DOMAIN " .. hi
		elseif lo == BT.TOPIC or (lo == BT.EXT and hi == XT.TOPIC) then
			local id = hi
			if lo == BT.EXT then
				if not need(3) then
					return false
				end
				wire = 3
				id = uint(tvb:range(pos + 1, 2), sw)
				add_int(st, f.topic, tvb:range(pos + 1, 2), sw)
				st:add(f.topic_ext, tvb:range(pos, 3), true):set_generated()
			else
				st:add(f.topic, tvb:range(pos, 1), hi)
			end
			topic, has_topic = id, true
			-- A sequence number numbers the next DATA of its own topic only.
			seqnr = nil
			summary = "TOPIC " .. id
			if snps.prefs.builtins and domain == BUILTIN_DOMAIN and builtin_names[id] then
				summary = summary .. " (" .. builtin_names[id] .. ")"
			end
		elseif lo == BT.DATA then
			if not need_topic() then
				return false
			end
			local rest = avail - 1
			local size, from = table_size(domain, topic), "topic table"
			if not size and done + 1 == count then
				size, from = rest, "rest of frame"
			end
			if not size and snps.prefs.builtins and builtin_sizes[topic] then
				size, from = builtin_sizes[topic], "builtin topic"
			end
			if not size then
				size, from = hi, "length nibble"
			end
			st:add(f.data_len, tvb:range(pos, 1), hi)
			if size > rest then
				return fail(st, e.truncated, pos,
					string.format("Sample of %d bytes (%s), %d left", size, from, rest))
			end
			wire = 1 + size
			st:set_len(wire)
			st:add(f.data_size, tvb:range(pos, wire), size):set_generated()
			st:add(f.data_size_src, tvb:range(pos, 1), from):set_generated()
			st:add(f.data_domain, tvb:range(pos, 1), domain):set_generated()
			st:add(f.data_topic, tvb:range(pos, 1), topic):set_generated()
			if seqnr then
				st:add(f.data_seqnr, tvb:range(pos, 1), seqnr):set_generated()
			end
			if from == "length nibble" then
				st:add_proto_expert_info(e.size_guess)
			elseif size % 16 ~= hi then
				st:add_proto_expert_info(e.nibble,
					string.format("Length nibble %d, but %d bytes mod 16 = %d", hi, size, size % 16))
			end
			summary = string.format("DATA %d B", size)
			label = string.format("DATA, %d bytes (size from %s), length nibble %d", size, from, hi)
			if size > 0 then
				local r = tvb:range(pos + 1, size)
				local dec = snps.prefs.builtins and domain == BUILTIN_DOMAIN and builtin_decoders[topic]
				st:add(f.sample, r)
				if dec and size == builtin_sizes[topic] then
					local bt = st:add(snps, r, builtin_names[topic] .. " sample")
					summary = dec(bt, r, sw, { addr = addr })
					label = label .. ": " .. summary
				else
					if dec then
						st:add_proto_expert_info(e.builtin_size,
							string.format("Topic %d is %s (%d bytes), this sample has %d", topic,
								builtin_names[topic], builtin_sizes[topic], size))
					end
				end
			end
			seqnr = nil
		elseif lo == BT.SEQNR then
			if not need_topic() then
				return false
			end
			seqnr, seqnr_bits = hi, 4
			st:add(f.seqnr, tvb:range(pos, 1), hi)
			st:add(f.seqnr_bits, tvb:range(pos, 1), 4):set_generated()
			summary = "SEQNR " .. hi
		elseif lo == BT.ACKSEQ or lo == BT.NACKSEQ then
			if not need_topic() then
				return false
			end
			st:add(lo == BT.ACKSEQ and f.ack or f.nack, tvb:range(pos, 1), hi)
			st:add(f.ack_bits, tvb:range(pos, 1), 4):set_generated()
			summary = name .. " " .. hi
		elseif lo == BT.ADDRESS then
			if not need(2) then
				return false
			end
			local spec = tvb:range(pos + 1, 1):uint()
			local cast, fam = spec % 16, math.floor(spec / 16)
			st:add(f.addr_len, tvb:range(pos, 1), hi)
			st:add(f.addr_cast, tvb:range(pos + 1, 1))
			st:add(f.addr_family, tvb:range(pos + 1, 1))
			-- Only the two forms real receivers parse (lib/snps snps_addr_valid).
			if cast > 2 or fam > 1 or (cast == 0 and hi ~= 0) or (cast ~= 0 and hi ~= 6) then
				return fail(st, e.bad_address, pos,
					string.format("ADDRESS cast %d family %d with %d address bytes", cast, fam, hi))
			end
			if not need(2 + hi) then
				return false
			end
			wire = 2 + hi
			st:set_len(wire)
			if cast == 0 then
				-- §4.6: "use the source address and port of this frame".
				addr = "unicast, the frame's source " .. tostring(pinfo.src) .. " port " .. pinfo.src_port
				summary = "ADDRESS unicast"
			else
				local r = tvb:range(pos + 2, 6)
				local a = expand_group(r)
				st:add(f.addr_compressed, r)
				st:add(f.addr_group, r, a)
				addr = cast_names[cast] .. " " .. tostring(a)
				summary = "ADDRESS " .. tostring(a)
			end
			label = "ADDRESS, " .. addr
		elseif lo == BT.EXT and (hi == XT.ACK or hi == XT.NACK) then
			if not need_topic() then
				return false
			end
			used = 2
			-- The marker and its SEQNR_* are two counted submessages (§4.2).
			if done + 1 >= count then
				return fail(st, e.ack_no_seqnr, pos, "Marker is the last counted submessage")
			end
			if avail < 2 then
				return fail(st, e.count_high, pos + 1)
			end
			local h2 = tvb:range(pos + 1, 1):uint()
			local size = (h2 % 16 == BT.EXT) and ext_seqnr_size[math.floor(h2 / 16)]
			if not size then
				return fail(st, e.ack_no_seqnr, pos + 1)
			end
			if avail < 2 + size then
				return fail(st, e.truncated, pos + 1)
			end
			wire = 2 + size
			st:set_len(wire)
			local sr = tvb:range(pos + 1, 1 + size)
			local ss = st:add(f.submsg, sr)
			ss:add(f.hdr, sr:range(0, 1))
			ss:add(f.type, sr:range(0, 1))
			ss:add(f.ext, sr:range(0, 1))
			ss:set_text(ext_names[math.floor(h2 / 16)])
			local v = uint(sr:range(1, size), sw)
			add_int(ss, hi == XT.ACK and f.ack or f.nack, sr:range(1, size), sw)
			ss:add(f.ack_bits, sr:range(0, 1), 8 * size):set_generated()
			summary = string.format("%s %d (%d bits)", name, v, 8 * size)
		elseif lo == BT.EXT and ext_seqnr_size[hi] then
			if not need_topic() then
				return false
			end
			local size = ext_seqnr_size[hi]
			if not need(1 + size) then
				return false
			end
			wire = 1 + size
			st:set_len(wire)
			seqnr, seqnr_bits = uint(tvb:range(pos + 1, size), sw), 8 * size
			add_int(st, f.seqnr, tvb:range(pos + 1, size), sw)
			st:add(f.seqnr_bits, tvb:range(pos, 1), seqnr_bits):set_generated()
			summary = string.format("SEQNR %d (%d bits)", seqnr, seqnr_bits)
		elseif lo == BT.EXT and hi == XT.TSDDS then
			if not need(9) then
				return false
			end
			wire = 9
			st:set_len(wire)
			add_int(st, f.tsdds_sec, tvb:range(pos + 1, 4), sw)
			add_int(st, f.tsdds_nsec, tvb:range(pos + 5, 4), sw)
			st:add_proto_expert_info(e.reserved)
		elseif lo == BT.EXT and hi == XT.SECURE then
			if not need_topic() or not need(2) then
				return false
			end
			local l = tvb:range(pos + 1, 1):uint()
			st:add(f.secure_len, tvb:range(pos + 1, 1))
			if l < SECURE_OVERHEAD then
				return fail(st, e.bad_secure, pos, string.format("Blob of %d bytes", l))
			end
			if not need(2 + l) then
				return false
			end
			wire = 2 + l
			st:set_len(wire)
			local blob = tvb:range(pos + 2, l)
			st:add(f.secure_blob, blob)
			st:add(f.data_domain, tvb:range(pos, 1), domain):set_generated()
			st:add(f.data_topic, tvb:range(pos, 1), topic):set_generated()
			if seqnr then
				st:add(f.data_seqnr, tvb:range(pos, 1), seqnr):set_generated()
			end
			-- §12.6: endian="little" nodes put the blob on the wire reversed.
			local plain = sw and blob:bytes() or reversed(blob)
			local ptvb = plain:tvb("SECURE blob, IV | ciphertext | MAC")
			st:add(f.secure_iv, ptvb:range(0, 12))
			if l > SECURE_OVERHEAD then
				st:add(f.secure_ct, ptvb:range(12, l - SECURE_OVERHEAD))
			end
			st:add(f.secure_mac, ptvb:range(l - 12, 12))
			summary = string.format("SECURE %d B", l - SECURE_OVERHEAD)
			seqnr = nil
		elseif lo == BT.EXT then
			-- SEP, ADDR16, CRC, TSUSEC, TSMSEC, FRAG, FRAGNACK, EXTENDED.
			return fail(st, e.unknown_ext, pos, name .. " has no defined length: real receivers desynchronise")
		else
			-- TS, STATUS and the unassigned types: skipped as real receivers do.
			local n = (lo == BT.TS) and 3 or 1
			if not need(n) then
				return false
			end
			wire = n
			st:set_len(wire)
			if lo == BT.TS then
				local r = tvb:range(pos, 3)
				st:add(f.ts, r, hi * 65536 + uint(tvb:range(pos + 1, 2), sw))
				st:add(f.skipped, tvb:range(pos + 1, 2))
			elseif lo == BT.STATUS then
				st:add(f.status, tvb:range(pos, 1), hi)
				st:add(f.status_packs, tvb:range(pos, 1), hi % 2 == 1)
				summary = "STATUS " .. hi
			end
			st:add_proto_expert_info(e.reserved)
		end

		st:set_text(label or summary)
		table.insert(info, summary)
		pos = pos + wire
		done = done + used
	end

	if pos < len then
		tree:add(f.trailing, tvb:range(pos)):add_proto_expert_info(e.count_low,
			string.format("%d bytes after the %d counted submessages", len - pos, count))
		ok = false
	end
	return ok
end

local function dissect(tvb, pinfo, root)
	pinfo.cols.protocol = "SNPS"
	local tree = root:add(snps, tvb:range())
	local parts = {}
	local okcall, ok = pcall(walk, tvb, pinfo, tree, parts)
	if not okcall then
		tree:add_proto_expert_info(e.internal, "SNPS dissector internal error: " .. tostring(ok))
		return tvb:len()
	end
	local info = table.concat(parts, ", ")
	if not ok then
		info = info .. (info ~= "" and " " or "") .. "[protocol error, see expert info]"
	end
	pinfo.cols.info = info
	tree:append_text(", " .. info)
	return tvb:len()
end

function snps.dissector(tvb, pinfo, root)
	return dissect(tvb, pinfo, root)
end

-- The heuristic: header valid, first submessage DOMAIN, TOPIC or ext TOPIC
-- (what every real sender writes first, §4.7), and the whole frame parses.
local function heuristic(tvb, pinfo, root)
	if not snps.prefs.heuristic or tvb:len() < 3 then
		return false
	end
	if tvb:range(0, 1):uint() ~= VERSION or tvb:range(1, 1):uint() == 0 then
		return false
	end
	local first = tvb:range(2, 1):uint()
	if first % 16 ~= BT.DOMAIN and first % 16 ~= BT.TOPIC and first ~= 0xBF then
		return false
	end
	local okcall, ok = pcall(walk, tvb, pinfo, null_tree, {})
	if not okcall or not ok then
		return false
	end
	dissect(tvb, pinfo, root)
	return true
end

local udp_port = DissectorTable.get("udp.port")
local registered_port = nil

local function register_ports()
	local p = snps.prefs.port
	if registered_port == p then
		return
	end
	if registered_port then
		udp_port:remove(registered_port, snps)
		udp_port:remove(registered_port + MCAST_PORT_OFFSET, snps)
	end
	udp_port:add(p, snps)
	udp_port:add(p + MCAST_PORT_OFFSET, snps)
	registered_port = p
end

function snps.prefs_changed()
	register_ports()
end

register_ports()
snps:register_heuristic("udp", heuristic)
