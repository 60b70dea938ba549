/** `read`, made once per key however many times, and however concurrently, it is asked. */
export function oncePerKey<K, T>(read: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const known = new Map<K, Promise<T>>()
  return key => {
    let value = known.get(key)
    if (value === undefined) {
      value = read(key)
      known.set(key, value)
    }
    return value
  }
}
