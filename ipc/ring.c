/* SPDX-License-Identifier: MIT */
/* Not written yet. */
typedef int sdds_unwritten_ring;
