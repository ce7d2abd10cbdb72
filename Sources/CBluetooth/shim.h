#ifndef YOULL_CBLUETOOTH_SHIM_H
#define YOULL_CBLUETOOTH_SHIM_H
// BlueZ headers are not self-contained: this order is required (shared/INTEROP.md).
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

// Function-like macros do not import into Swift; re-expose the ones we use.

/// BDADDR_ANY is `(&(bdaddr_t) {{0, 0, 0, 0, 0, 0}})`, a macro: return the value.
static inline bdaddr_t youll_bdaddr_any(void) {
    bdaddr_t any = {{0, 0, 0, 0, 0, 0}};
    return any;
}

/// cmd_opcode_pack(ogf, ocf): the HCI command opcode.
static inline uint16_t youll_cmd_opcode_pack(uint16_t ogf, uint16_t ocf) {
    return (uint16_t)((ocf & 0x03ff) | (ogf << 10));
}

/// ioctl(HCIGETDEVINFO): `HCIGETDEVINFO` is an `_IOR(...)` macro and `ioctl` is variadic, and
/// neither imports into Swift. Fills `info` for the adapter numbered `info->dev_id`; returns
/// 0, or -1 with errno (ENODEV: no such adapter).
static inline int youll_hci_get_dev_info(int fd, struct hci_dev_info *info) {
    return ioctl(fd, HCIGETDEVINFO, (void *)info);
}
#endif
