/*
 * test_snapshot.c — which transactions a source snapshot sees (cdc_snapshot_sees), the check
 * that keeps a CDC batch and its snapshot in step: below xmin, between xmin and xmax unless in
 * progress, never from xmax on; 32-bit xids from the stream placed in the snapshot's epoch.
 */
#include "harness.h"
#include "cdc/cdc_int.h"

FLOE_TEST(cdc_snapshot_sees_committed_not_in_progress)
{
	const char *snap = "1000:1010:1003,1007";
	FLOE_CHECK(cdc_snapshot_sees(snap, 999));
	FLOE_CHECK(cdc_snapshot_sees(snap, 1000));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 1003));
	FLOE_CHECK(cdc_snapshot_sees(snap, 1004));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 1007));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 1010));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 2000));
	FLOE_CHECK(cdc_snapshot_sees("735:735:", 734));
	FLOE_CHECK(!cdc_snapshot_sees("735:735:", 735));
}

FLOE_TEST(cdc_snapshot_sees_across_an_xid_epoch)
{
	/* epoch 1: xid 4294967290 of epoch 0 is old; xid 5 is epoch 1's, in progress */
	const char *snap = "4294967300:4294967310:4294967301"; /* xmin = 2^32 + 4 */
	FLOE_CHECK(cdc_snapshot_sees(snap, 4294967290u));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 5));
	FLOE_CHECK(cdc_snapshot_sees(snap, 6));
	FLOE_CHECK(!cdc_snapshot_sees(snap, 14));
}
