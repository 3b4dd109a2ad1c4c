/* layout-native.c — the native layout (layout.h): the kernel's own variables are what demo.ort
 * names; nothing more to keep. */
#include "layout.h"

#define NOINSTR __attribute__((no_instrument_function))

void NOINSTR rig_layout_start(void) {}
void NOINSTR rig_layout_running(uint8_t task, uint8_t prio) { (void)task; (void)prio; }
void NOINSTR rig_layout_state(uint8_t task, uint8_t state, uint8_t fresh)
{
  (void)task; (void)state; (void)fresh;
}
void NOINSTR rig_layout_prio(uint8_t task, uint8_t prio) { (void)task; (void)prio; }
void NOINSTR rig_layout_isr(uint8_t isr) { (void)isr; }
void NOINSTR rig_layout_service(uint8_t value) { (void)value; }
void NOINSTR rig_layout_dispatch(uint8_t busy) { (void)busy; }
void NOINSTR rig_layout_isr_process(uint8_t isr, uint8_t state) { (void)isr; (void)state; }

const uint32_t rig_layout_features = 0;  /* ISR2s in their handlers, OSEK hooks for tasks */
