// bottleneck/light is the package's build without Redis clustering (what the throttling plugin
// uses); it has the same API as the main entry, whose typings it shares.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
