/*
 * libreplay: record, replay and verify matches of Buraco.
 *
 * The umbrella header. Every public function that can fail returns 0
 * (RPL_OK) or a negative, stable error code from enum rpl_error; handles
 * carry a one-line detail message for their last failure (see each module's
 * *_errmsg()). The library never prints, never exits and keeps no global
 * mutable state: different handles may be used from different threads at
 * once. docs/conventions.md says the rules every header follows: who frees
 * what, what a message says, what may run on several threads.
 */
#ifndef LIBREPLAY_LIBREPLAY_H
#define LIBREPLAY_LIBREPLAY_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"
#include "libreplay/meld.h"
#include "libreplay/game.h"
#include "libreplay/log.h"
#include "libreplay/position.h"
#include "libreplay/sim.h"
#include "libreplay/infoset.h"
#include "libreplay/review.h"
#include "libreplay/integrity.h"
#include "libreplay/notation.h"
#include "libreplay/export.h"
#include "libreplay/deal.h"
#include "libreplay/sign.h"

#endif
