// SPDX-License-Identifier: GPL-2.0
/*
 * kdelay: a test module that widens a race window.  It puts a kprobe on
 * @symbol and busy-waits @delay_ms in its pre-handler, @times times, when
 * the caller matches the filters:
 *
 *   comm	the current task's name starts with this (in task context)
 *   work	the work_struct in the call's third argument (queue_work_on)
 *		runs this function
 *
 * With @sleep, the task sleeps instead (until @release is set, at most
 * @delay_ms), and the rest of the machine goes on (a busy-wait holds its
 * CPU, and work queued there, for the whole delay): the probe sends the
 * call to a function that sleeps and then makes the call itself.  Only
 * for a probe on a function's entry (the symbol, no offset) called in
 * task context with no lock held, with at most six integer arguments
 * (x86-64); one task delayed at a time.
 *
 * @hits counts the delays done, so that a test knows its window opened.
 * Only for test guests: the debug kernel's (tests/lib/debug.sh builds it
 * for that kernel) and the guest tier's (make tools builds it into
 * tests/out/kdelay for the kernel the guests boot); never loaded anywhere
 * else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "function to delay on entry");

static char *comm;
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "only for tasks whose name starts with this");

static char *work;
module_param(work, charp, 0444);
MODULE_PARM_DESC(work, "only for a work_struct (third argument) running this function");

static unsigned int delay_ms = 1000;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "busy wait per hit");

static int times = 1;
module_param(times, int, 0444);
MODULE_PARM_DESC(times, "hits to delay");

static atomic_t hits = ATOMIC_INIT(0);
static int hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&hits));
}

static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "delays done");

static bool sleep;
module_param(sleep, bool, 0444);
MODULE_PARM_DESC(sleep, "sleep instead of busy-waiting (see the source)");

/* With @sleep, writing 1 to @release ends the sleeps early, now and later. */
static bool released;
static DECLARE_WAIT_QUEUE_HEAD(kdelay_wait);

static int release_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (!err)
		wake_up_all(&kdelay_wait);
	return err;
}

static const struct kernel_param_ops release_ops = {
	.set = release_set,
	.get = param_get_bool,
};
module_param_cb(release, &release_ops, &released, 0644);
MODULE_PARM_DESC(release, "1: a sleeping delay ends now (sleep only)");

static void *work_fn;
static struct kprobe kdelay_probe;
/* The task that makes the delayed call itself: let through. */
static struct task_struct *kdelay_caller;

typedef unsigned long (*kdelay_fn_t)(unsigned long, unsigned long,
				     unsigned long, unsigned long,
				     unsigned long, unsigned long);

/* Where a delayed call goes with @sleep: the same registers and stack. */
static unsigned long kdelay_sleeper(unsigned long a, unsigned long b,
				    unsigned long c, unsigned long d,
				    unsigned long e, unsigned long f)
{
	kdelay_fn_t fn = (kdelay_fn_t)kdelay_probe.addr;
	unsigned long ret;

	wait_event_timeout(kdelay_wait, READ_ONCE(released),
			   msecs_to_jiffies(delay_ms));
	WRITE_ONCE(kdelay_caller, current);
	ret = fn(a, b, c, d, e, f);
	WRITE_ONCE(kdelay_caller, NULL);
	module_put(THIS_MODULE);
	return ret;
}

/*
 * Whether the probed call was made in task context.  An int3 probe's
 * handler runs as an NMI (irqentry_nmi_enter() adds NMI_OFFSET and
 * HARDIRQ_OFFSET), where in_task() is always false: the debug kernel
 * has no ftrace, so a probe that is not optimized into a jump (one with
 * a post handler, or one not optimized yet) is an int3 probe there.
 * The caller's context is what lies below.
 */
static bool kdelay_caller_in_task(void)
{
	unsigned long pc = preempt_count();

	if (pc & NMI_MASK)
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	return !(pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET));
}

static int kdelay_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct work_struct *w = (struct work_struct *)regs->dx;

	if (comm && (!kdelay_caller_in_task() ||
		     strncmp(current->comm, comm, strlen(comm))))
		return 0;
	if (work_fn && (void *)w->func != work_fn)
		return 0;
	if (sleep && READ_ONCE(kdelay_caller) == current)
		return 0;
	if (atomic_inc_return(&hits) > times) {
		atomic_dec(&hits);
		return 0;
	}
	pr_info("delaying %s in %s for %u ms\n", symbol, current->comm, delay_ms);
	if (sleep) {
		/* Held while a task sleeps in it: rmmod fails meanwhile. */
		if (!try_module_get(THIS_MODULE))
			return 0;
		/* Nonzero: the handler set the address to go on at. */
		instruction_pointer_set(regs, (unsigned long)kdelay_sleeper);
		return 1;
	}
	mdelay(delay_ms);
	return 0;
}

/*
 * With a post handler, the probe is never optimized into a jump (whose
 * return would not go to the address the handler set).
 */
static void kdelay_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
}

/* The address of @name, through a kprobe (kallsyms_lookup_name is not exported). */
static void *kdelay_lookup(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	void *addr;

	if (register_kprobe(&kp))
		return NULL;
	addr = kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static int __init kdelay_init(void)
{
	int err;

	if (!symbol)
		return -EINVAL;
	if (work) {
		work_fn = kdelay_lookup(work);
		if (!work_fn) {
			pr_err("no function %s\n", work);
			return -ENOENT;
		}
	}
	kdelay_probe.symbol_name = symbol;
	kdelay_probe.pre_handler = kdelay_pre;
	if (sleep)
		kdelay_probe.post_handler = kdelay_post;
	err = register_kprobe(&kdelay_probe);
	if (err)
		pr_err("cannot probe %s: %d\n", symbol, err);
	return err;
}

static void __exit kdelay_exit(void)
{
	unregister_kprobe(&kdelay_probe);
}

module_init(kdelay_init);
module_exit(kdelay_exit);
MODULE_DESCRIPTION("Delays a kernel function for race tests");
MODULE_LICENSE("GPL");
