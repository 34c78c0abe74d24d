package io.benchwarden.agent;

import java.util.HashSet;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Which methods of a class invoke themselves directly: a call instruction whose owner, name and descriptor are
 * the method's own (read from the class file with ByteBuddy's bundled ASM). These get the recursion-aware
 * bookkeeping; every other target gets the plain one (see {@link Slowdown}).
 */
final class SelfCalls {

    private SelfCalls() {
    }

    /** {@code name + descriptor} of each method in {@code classFile} that calls itself. */
    static Set<String> in(byte[] classFile) {
        Set<String> found = new HashSet<>();
        ClassReader reader = new ClassReader(classFile);
        String owner = reader.getClassName();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                String self = name + descriptor;
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String callOwner, String callName, String callDescriptor,
                                                boolean isInterface) {
                        if (callOwner.equals(owner) && (callName + callDescriptor).equals(self)) {
                            found.add(self);
                        }
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return found;
    }
}
