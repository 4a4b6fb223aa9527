/* SPDX-License-Identifier: MIT */
/*
 * test_codegen_types.c - code generated from data/gen_types (enums of every
 * size, a namespaced datatype, nested structs, primary and secondary keys,
 * QoS configs, defines, a topic without a role) on the fake runtime.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_dcps.h"
#include "gen_types_sdds_impl.h"

/* The <define>s become macros. */
#ifndef GEN_TYPES_FEATURE
#error "GEN_TYPES_FEATURE not defined"
#endif
#if GEN_TYPES_LEVEL != 42
#error "GEN_TYPES_LEVEL wrong"
#endif

/* Enum sizes follow snps-wire.md §6.2; the C types match the wire. */
_Static_assert(sizeof(Level) == 1, "3 literals: 1 byte");
_Static_assert(sizeof(alarm_Big) == 2, "200: 2 bytes");
_Static_assert(sizeof(Wide) == 4, "70000: 4 bytes");
_Static_assert(sizeof(Huge) == 8, "5000000000: 8 bytes");
_Static_assert(sizeof(sdds_NodeId) == 2, "datatype of DDS_unsigned_short");
_Static_assert(sizeof(((Gps *)0)->name) == 8, "DDS_string size 7 is char[8]");
_Static_assert(Gps_SAMPLE_SIZE == 32, "gps layout");
_Static_assert(Alarm_SAMPLE_SIZE == 15, "alarm layout");

static const uint8_t gps_wire[32] = {
    0x01, 0x02,					    /* node */
    0xff, 0xff, 0x03, 0x04,			    /* fix.pos.x = -1, y = 0x0304 */
    0xff, 0xff, 0xff, 0xfe,			    /* fix.pos.z = -2 */
    0x02,					    /* fix.quality = exact */
    0x61, 0x62, 0x00, 0x00,			    /* fix.label "ab", K = 3 */
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* time */
    0x67, 0x70, 0x73, 0x6e, 0x6f, 0x64, 0x65, 0x00, /* name "gpsnode", K = 7 */
    0x01,					    /* flag */
};

static const uint8_t alarm_wire[15] = {
    0x00, 0xc8,					    /* level = high (200) */
    0x00, 0x00, 0x00, 0x01, 0x2a, 0x05, 0xf2, 0x00, /* huge = far (5000000000) */
    0x00, 0x01, 0x11, 0x70,			    /* wide = a (70000) */
    0x21,					    /* c = '!' */
};

static void gps_probe(Gps *g)
{
	memset(g, 0, sizeof(*g));
	g->node = 0x0102;
	g->fix.pos.x = -1;
	g->fix.pos.y = 0x0304;
	g->fix.pos.z = -2;
	g->fix.quality = Level_EXACT;
	strcpy(g->fix.label, "ab");
	g->time = 0x1122334455667788ULL;
	strcpy(g->name, "gpsnode");
	g->flag = 1;
}

static int reset(void **state)
{
	(void)state;
	fake_reset();
	g_Gps_topic = NULL;
	g_Gps_writer = NULL;
	g_Gps_reader = NULL;
	g_Alarm_topic = NULL;
	g_Alarm_reader = NULL;
	return 0;
}

static void test_literals(void **state)
{
	(void)state;
	assert_int_equal(Level_NONE, 0);
	assert_int_equal(Level_ROUGH, 1);
	assert_int_equal(Level_EXACT, 2);
	assert_int_equal(alarm_Big_LOW, 1);
	assert_int_equal(alarm_Big_HIGH, 200);
	assert_int_equal(Wide_A, 70000);
	assert_int_equal(Wide_B, 1); /* by position */
	assert_true(Huge_FAR == 5000000000ULL);
}

static void test_gps_bytes(void **state)
{
	uint8_t wire[Gps_SAMPLE_SIZE];
	Gps g, back;

	(void)state;
	gps_probe(&g);
	/* Key aliases. */
	assert_int_equal(g.pkey, 0x0102);
	assert_string_equal(g.skey, "gpsnode");
	Gps_marshal(&g, wire);
	assert_memory_equal(wire, gps_wire, sizeof(gps_wire));
	memset(&back, 0x55, sizeof(back));
	Gps_unmarshal(wire, &back);
	assert_int_equal(back.node, 0x0102);
	assert_int_equal(back.fix.pos.x, -1);
	assert_int_equal(back.fix.pos.y, 0x0304);
	assert_int_equal(back.fix.pos.z, -2);
	assert_int_equal(back.fix.quality, Level_EXACT);
	assert_string_equal(back.fix.label, "ab");
	assert_true(back.time == 0x1122334455667788ULL);
	assert_string_equal(back.name, "gpsnode");
	assert_int_equal(back.flag, 1);
}

static void test_alarm_bytes(void **state)
{
	uint8_t wire[Alarm_SAMPLE_SIZE];
	Alarm a = {.level = alarm_Big_HIGH, .huge = Huge_FAR, .wide = Wide_A, .c = '!'}, back;

	(void)state;
	Alarm_marshal(&a, wire);
	assert_memory_equal(wire, alarm_wire, sizeof(alarm_wire));
	memset(&back, 0, sizeof(back));
	Alarm_unmarshal(wire, &back);
	assert_int_equal(back.level, 200);
	assert_true(back.huge == 5000000000ULL);
	assert_int_equal(back.wide, 70000);
	assert_int_equal(back.c, '!');
}

static void test_descriptions(void **state)
{
	static const struct {
		const char *name;
		sdds_field_type type;
		uint32_t size;
	} gps[] =
	    {
		{"node", SDDS_FIELD_USHORT, 2},	     {"fix.pos.x", SDDS_FIELD_SHORT, 2},
		{"fix.pos.y", SDDS_FIELD_SHORT, 2},  {"fix.pos.z", SDDS_FIELD_LONG, 4},
		{"fix.quality", SDDS_FIELD_ENUM, 1}, {"fix.label", SDDS_FIELD_STRING, 4},
		{"time", SDDS_FIELD_ULONGLONG, 8},   {"name", SDDS_FIELD_STRING, 8},
		{"flag", SDDS_FIELD_BOOLEAN, 1},
	    },
	  alarm[] = {
	      {"level", SDDS_FIELD_ENUM, 2},
	      {"huge", SDDS_FIELD_ENUM, 8},
	      {"wide", SDDS_FIELD_ENUM, 4},
	      {"c", SDDS_FIELD_CHAR, 1},
	  };

	(void)state;
	assert_int_equal(Gps_desc.domain, 3); /* from the <domain id> of the topic file */
	assert_int_equal(Gps_desc.id, 0xC);
	assert_int_equal(Gps_desc.sample_size, 32);
	assert_int_equal(Gps_desc.n_fields, sizeof(gps) / sizeof(gps[0]));
	for (size_t i = 0; i < Gps_desc.n_fields; i++) {
		assert_string_equal(Gps_desc.fields[i].name, gps[i].name);
		assert_int_equal(Gps_desc.fields[i].type, gps[i].type);
		assert_int_equal(Gps_desc.fields[i].size, gps[i].size);
	}
	assert_int_equal(Alarm_desc.domain, 0); /* its own domain attribute wins */
	assert_int_equal(Alarm_desc.id, 9);
	assert_int_equal(Alarm_desc.n_fields, 4);
	for (size_t i = 0; i < Alarm_desc.n_fields; i++) {
		assert_string_equal(Alarm_desc.fields[i].name, alarm[i].name);
		assert_int_equal(Alarm_desc.fields[i].type, alarm[i].type);
		assert_int_equal(Alarm_desc.fields[i].size, alarm[i].size);
	}
}

static void test_init_qos(void **state)
{
	struct fake_endpoint *e;

	(void)state;
	assert_int_equal(sDDS_init(), SDDS_RT_OK);
	assert_string_equal(fake.app_name, "gen_types");
	/* "unused" has no role: not registered. */
	assert_int_equal(fake.n_topics, 2);
	assert_int_equal(fake.n_endpoints, 3);
	e = fake_endpoint_of(g_Gps_writer);
	assert_non_null(e);
	assert_int_equal(e->qos.reliability, SDDS_RELIABLE);
	assert_int_equal(e->qos.max_blocking_ms, 250);
	assert_int_equal(e->qos.history_depth, 64); /* a writer keeps the default */
	e = fake_endpoint_of(g_Gps_reader);
	assert_non_null(e);
	assert_int_equal(e->qos.reliability, SDDS_RELIABLE);
	assert_int_equal(e->qos.history_depth, 8);
	assert_int_equal(e->qos.max_blocking_ms, 100);
	e = fake_endpoint_of(g_Alarm_reader);
	assert_non_null(e);
	assert_int_equal(e->qos.reliability, SDDS_BEST_EFFORT);
	assert_int_equal(fake.errors, 0);
}

static void test_write_take(void **state)
{
	Gps g, got, *p = &got;
	Alarm a = {.level = alarm_Big_LOW, .huge = 7, .wide = Wide_B, .c = 'x'}, ag, *ap = &ag;
	sdds_qos qos;
	DDS_DataWriter alarm_writer;

	(void)state;
	assert_int_equal(sDDS_init(), SDDS_RT_OK);
	gps_probe(&g);
	assert_int_equal(DDS_GpsDataWriter_write(g_Gps_writer, &g, NULL), DDS_RETCODE_OK);
	assert_memory_equal(fake.last_written, gps_wire, sizeof(gps_wire));
	memset(&got, 0, sizeof(got));
	assert_int_equal(DDS_GpsDataReader_take_next_sample(g_Gps_reader, &p, NULL), DDS_RETCODE_OK);
	assert_int_equal(got.fix.pos.z, -2);
	assert_string_equal(got.name, "gpsnode");

	/* This node only subscribes to alarm: write through a writer of our own. */
	sdds_qos_init(&qos);
	alarm_writer = sdds_dcps_writer(g_Alarm_topic, &qos);
	assert_non_null(alarm_writer);
	assert_int_equal(DDS_AlarmDataWriter_write(alarm_writer, &a, NULL), DDS_RETCODE_OK);
	assert_int_equal(DDS_AlarmDataReader_take_next_sample(g_Alarm_reader, &ap, NULL), DDS_RETCODE_OK);
	assert_int_equal(ag.level, 1);
	assert_true(ag.huge == 7);
	assert_int_equal(ag.wide, 1);
	assert_int_equal(ag.c, 'x');
	assert_int_equal(DDS_AlarmDataReader_take_next_sample(g_Alarm_reader, &ap, NULL),
			 DDS_RETCODE_NO_DATA);
	assert_int_equal(fake.errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_literals, reset),    cmocka_unit_test_setup(test_gps_bytes, reset),
	    cmocka_unit_test_setup(test_alarm_bytes, reset), cmocka_unit_test_setup(test_descriptions, reset),
	    cmocka_unit_test_setup(test_init_qos, reset),    cmocka_unit_test_setup(test_write_take, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
